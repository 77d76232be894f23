// Quota leases (migration 011): units a busy client takes ahead, spent in this process without a round trip.
import type { WithSettings } from '../../store/database.ts';
import { query } from '../../store/queries.ts';

/** used: what the window has spent, as far as this process knows: the store's count less its unspent leases. */
export type Standing = { outcome: string; budget: number; used: number; leased: number; reportsVersion: number };

/**
 * The units a busy client's first lease asks for. Each time its requests outrun a lease (one finds it empty before
 * the renewal arrives), the next asks for twice as many, up to MAX_LEASE_UNITS: at thousands of requests a second a
 * renewal's round trip outlasts a lease of 100, and every request past it waits on the store. Migration 011 grants
 * less near any limit, whatever is asked.
 */
const LEASE_UNITS = 100;
const MAX_LEASE_UNITS = 1600;
/**
 * Unspent lease units go back to the store after this long. It bounds how long leased units stand unspent in the
 * window (another process's /v1/me reads them as used) and how old the report version a leased request reads is.
 */
const LEASE_MS = 250;

/** size: what the client's next lease asks for; ranDry: a charge found it empty since its last grant. */
type Lease = {
  units: number;
  size: number;
  ranDry: boolean;
  reportsVersion: number;
  timer?: ReturnType<typeof setTimeout>;
};
/** One subscription's window in this process: its leases by client, and what it has spent as far as we know. */
type Book = { budget: number; spent: number; leases: Map<string, Lease> };

/** The units a book's leases hold unspent. */
function unspent(book: Book | undefined): number {
  let units = 0;
  for (const lease of book?.leases.values() ?? []) units += lease.units;
  return units;
}

/** Adds a granted lease's units to the client's, which expire (ended, the rest refunded) LEASE_MS after the last. */
function grant(book: Book, clientId: string, row: Standing, expire: (lease: Lease) => void): void {
  let lease = book.leases.get(clientId);
  if (!lease) {
    lease = { units: 0, size: LEASE_UNITS, ranDry: false, reportsVersion: row.reportsVersion };
    book.leases.set(clientId, lease);
  }
  if (lease.ranDry) lease.size = Math.min(lease.size * 2, MAX_LEASE_UNITS);
  lease.ranDry = false;
  lease.units += row.leased;
  lease.reportsVersion = Math.max(lease.reportsVersion, row.reportsVersion);
  clearTimeout(lease.timer);
  const granted = lease;
  granted.timer = setTimeout(() => expire(granted), LEASE_MS);
  granted.timer.unref?.();
}

/**
 * The refunds of ended leases still being written, ended by a timer or by close: close waits for them all, so none is
 * cut off by the database closing after it (an over-charge of up to a lease). One that fails stays charged.
 */
function pendingRefunds() {
  const pending = new Set<Promise<void>>();
  return {
    track(written: Promise<unknown>): Promise<void> {
      const refund = written.then(
        () => void pending.delete(refund),
        () => void pending.delete(refund),
      );
      pending.add(refund);
      return refund;
    },
    settled: () => Promise.all(pending),
  };
}

/**
 * Quota leases (migration 011). A client whose charges queue up takes a few units ahead with one of them; its next
 * requests spend those here, with no round trip, and a 304 puts its unit back. The units were charged in the store
 * like any others, so the window never passes the budget; what is unspent after LEASE_MS, or at shutdown, is
 * refunded. Meanwhile the store counts them as used: standings this process reports subtract its own unspent units.
 */
export function leaseBooks(withSettings: WithSettings) {
  const books = new Map<string, Book>();
  // The last key made is given again while it fits: a busy client's every request looks its book up, and a string
  // made afresh is hashed afresh for the lookup.
  let last = { organizationId: '', window: Number.NaN, key: '' };
  const bookKey = (organizationId: string, window: number) => {
    if (organizationId !== last.organizationId || window !== last.window)
      last = { organizationId, window, key: `${organizationId} ${window}` };
    return last.key;
  };

  const refunds = pendingRefunds();

  /** Ends a lease: its unspent units go back to the store; one that cannot be written stays charged, never under. */
  function end(organizationId: string, clientId: string, window: number, lease: Lease): Promise<void> {
    clearTimeout(lease.timer);
    const key = bookKey(organizationId, window);
    const book = books.get(key);
    if (book?.leases.get(clientId) === lease) book.leases.delete(clientId);
    if (book?.leases.size === 0) books.delete(key);
    const units = lease.units;
    lease.units = 0;
    if (units === 0) return Promise.resolve();
    const refund = { org: organizationId, client: clientId, window: new Date(window), units };
    return refunds.track(withSettings((sql) => query(sql, 'refund-quota', refund)));
  }

  return {
    /** The standing as this process knows it: the store's used less the unspent units it holds. */
    used(organizationId: string, window: number, storeUsed: number) {
      // A lease granted after the store was read is not in storeUsed: never below nothing.
      return Math.max(storeUsed - unspent(books.get(bookKey(organizationId, window))), 0);
    },

    /**
     * A batch's answers, in order: each row's used becomes what is spent (every lease granted up to and including
     * it is unspent), and each lease it granted joins the client's.
     */
    settle(organizationId: string, window: number, batch: { clientId: string }[], rows: Standing[]) {
      const key = bookKey(organizationId, window);
      let held = unspent(books.get(key));
      rows.forEach((row, i) => {
        if (row.leased > 0) {
          const clientId = batch[i].clientId;
          let book = books.get(key);
          if (!book) books.set(key, (book = { budget: row.budget, spent: 0, leases: new Map() }));
          grant(book, clientId, row, (lease) => void end(organizationId, clientId, window, lease));
          held += row.leased;
        }
        row.used -= held;
        const book = books.get(key);
        if (book) Object.assign(book, { budget: row.budget, spent: row.used });
      });
    },

    /**
     * Spends from the client's lease: the standing after it, or undefined when the lease cannot cover the cost. A
     * lease spent to nothing stays until its timer, so that the next grant knows it was too small.
     */
    spend(organizationId: string, clientId: string, window: number, cost: number) {
      const book = books.get(bookKey(organizationId, window));
      const lease = book?.leases.get(clientId);
      if (!book || !lease) return undefined;
      if (lease.units < cost) {
        lease.ranDry = true;
        return undefined;
      }
      lease.units -= cost;
      book.spent += cost;
      // Under half a lease left: time to ask for the next, so a busy client's requests need not wait for it.
      const low = lease.units < lease.size / 2;
      return { budget: book.budget, used: book.spent, reportsVersion: lease.reportsVersion, low };
    },

    /** The units the client's next lease asks for. */
    size(organizationId: string, clientId: string, window: number) {
      return books.get(bookKey(organizationId, window))?.leases.get(clientId)?.size ?? LEASE_UNITS;
    },

    /** Puts a refunded charge back into the client's lease while it lasts: the standing after it, or undefined. */
    giveBack(organizationId: string, clientId: string, window: number, cost: number) {
      const book = books.get(bookKey(organizationId, window));
      const lease = book?.leases.get(clientId);
      if (!book || !lease) return undefined;
      lease.units += cost;
      book.spent = Math.max(book.spent - cost, 0);
      return { budget: book.budget, used: book.spent };
    },

    async close() {
      for (const [key, book] of books) {
        const [organizationId, window] = key.split(' ');
        for (const [clientId, lease] of book.leases) void end(organizationId, clientId, Number(window), lease);
      }
      await refunds.settled();
    },
  };
}

export type Leases = ReturnType<typeof leaseBooks>;
