// The hourly quota (DECISIONS §4): fixed UTC-hour windows, charged atomically in PostgreSQL, refunded on 304.
import type { Context } from '../../http/context.ts';
import type { Sql } from '../../store/database.ts';
import { ApiError, billingUnavailable, invalidToken, planFeatureRequired, subscriptionLocked } from '../../http/problem.ts';
import { query } from '../../store/queries.ts';
import { withTimeout } from '../../store/timeout.ts';

const HOUR_MS = 3600_000;
/** A charge that takes longer than this is treated as a quota store that cannot be reached. */
const CHARGE_TIMEOUT_MS = 3000;
const UNAVAILABLE_RETRY_S = 5;
/** /v1/me's read of the standing: it answers 200 whatever, so it must not wait long. */
const STORE_READ_TIMEOUT_MS = 1000;

export const windowStart = (now: number) => Math.floor(now / HOUR_MS) * HOUR_MS;
export const secondsToReset = (now: number) => Math.max(1, Math.ceil((windowStart(now) + HOUR_MS - now) / 1000));

/** Sets the IETF httpapi ratelimit headers draft's two headers, as DECISIONS §4 spells them, among a response's. */
export function setStandingHeaders(headers: Record<string, string>, budget: number, used: number, now: number): void {
  headers['ratelimit-policy'] = `"hourly";q=${budget};w=3600`;
  headers.ratelimit = `"hourly";r=${Math.max(budget - used, 0)};t=${secondsToReset(now)}`;
}

const unavailable = () =>
  new ApiError('rate-limiter-unavailable', 'Requests cannot be metered right now, so none are served. Retry shortly.', {
    retryAfterSeconds: UNAVAILABLE_RETRY_S,
  });


/** leased: spent from this process's lease, so a refund goes back into it while it lasts. */
export type Charge = { window: number; cost: number; leased?: boolean };

export type Quota = {
  /** Charges the request: at once from a lease, or after the store's answer. */
  charge(ctx: Context, cost: number): void | Promise<void>;
  /** Gives back the request's charge (a 304 costs nothing), updating its standing headers. */
  refund(ctx: Context): Promise<void>;
  standing(organizationId: string): Promise<{ budget: number; used: number } | undefined>;
  /** Gives back every lease's unspent units: on shutdown, before the database closes. */
  close(): Promise<void>;
};

/** used: what the window has spent, as far as this process knows: the store's count less its unspent leases. */
type Standing = { outcome: string; budget: number; used: number; leased: number; reportsVersion: number };

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
type Lease = { units: number; size: number; ranDry: boolean; reportsVersion: number; timer?: ReturnType<typeof setTimeout> };
/** One subscription's window in this process: its leases by client, and what it has spent as far as we know. */
type Book = { budget: number; spent: number; leases: Map<string, Lease> };

/**
 * Quota leases (migration 011). A client whose charges queue up takes a few units ahead with one of them; its next
 * requests spend those here, with no round trip, and a 304 puts its unit back. The units were charged in the store
 * like any others, so the window never passes the budget; what is unspent after LEASE_MS, or at shutdown, is
 * refunded. Meanwhile the store counts them as used: standings this process reports subtract its own unspent units.
 */
function leaseBooks(sql: Sql) {
  const books = new Map<string, Book>();
  const bookKey = (organizationId: string, window: number) => `${organizationId} ${window}`;

  const unspent = (book: Book | undefined) => {
    let units = 0;
    for (const lease of book?.leases.values() ?? []) units += lease.units;
    return units;
  };

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
    return query(sql, 'refund-quota', [organizationId, clientId, new Date(window), units]).then(() => {}, () => {});
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
          let lease = book.leases.get(clientId);
          if (!lease) book.leases.set(clientId, (lease = { units: 0, size: LEASE_UNITS, ranDry: false, reportsVersion: row.reportsVersion }));
          if (lease.ranDry) lease.size = Math.min(lease.size * 2, MAX_LEASE_UNITS);
          lease.ranDry = false;
          lease.units += row.leased;
          lease.reportsVersion = Math.max(lease.reportsVersion, row.reportsVersion);
          clearTimeout(lease.timer);
          const granted = lease;
          granted.timer = setTimeout(() => void end(organizationId, clientId, window, granted), LEASE_MS);
          granted.timer.unref?.();
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
      const ending: Promise<void>[] = [];
      for (const [key, book] of books) {
        const [organizationId, window] = key.split(' ');
        for (const [clientId, lease] of book.leases) ending.push(end(organizationId, clientId, Number(window), lease));
      }
      await Promise.all(ending);
    },
  };
}

type Leases = ReturnType<typeof leaseBooks>;

/**
 * A charge waiting for its subscription's batch; one that gave up waiting is left out of the next batch. ask: the
 * most units to lease after it (a renewal is a charge of 0 that asks).
 */
type Waiting = { clientId: string; cost: number; ask: number; gaveUp: boolean; settle: (row: Standing | undefined) => void; fail: (error: unknown) => void };

/** More than this many waiting charges go in more than one call. */
const MAX_BATCH = 500;

/**
 * Group commit for charges. A subscription's charges take its window row's lock one after another in any case, so a
 * process keeps one call for them under way at a time, and the charges that arrive meanwhile go together in the next
 * (charge_quota_leasing, migrations 009 and 011), which applies each in order with its own outcome. A quiet
 * subscription's charge goes at once; a busy one's share a round trip and a commit, and take a lease.
 */
function chargeBatches(sql: Sql, leases: Leases) {
  const queues = new Map<string, Waiting[]>();
  const draining = new Set<Promise<void>>();

  /** A client with more than one charge in the batch is busy: its last charge asks for a lease. */
  function leaseAsks(organizationId: string, window: number, batch: Waiting[]) {
    const asks = batch.map((w) => w.ask);
    const seen = new Map<string, number>();
    for (let i = batch.length - 1; i >= 0; i--) {
      const at = seen.get(batch[i].clientId);
      if (at === undefined) seen.set(batch[i].clientId, i);
      else asks[at] = leases.size(organizationId, batch[i].clientId, window);
    }
    return asks;
  }

  async function drain(key: string, organizationId: string, window: number, batch: Waiting[]) {
    while (batch.length > 0) {
      try {
        // A call the store never answers must not hold the subscription's later charges behind it.
        const rows = await withTimeout(
          query<Standing>(sql, 'charge-quota-batch', [
            organizationId,
            new Date(window),
            batch.map((w) => w.clientId),
            batch.map((w) => w.cost),
            leaseAsks(organizationId, window, batch),
          ]),
          CHARGE_TIMEOUT_MS,
        );
        // Granted even to a charge that gave up waiting: the units are charged, so they must be spent or refunded.
        leases.settle(organizationId, window, batch, rows);
        batch.forEach((w, i) => w.settle(rows[i]));
      } catch (error) {
        for (const w of batch) w.fail(error);
      }
      // A run of charges that all gave up while they waited must not end the drain before the ones queued behind it.
      const queue = queues.get(key)!;
      do batch = queue.splice(0, MAX_BATCH).filter((w) => !w.gaveUp);
      while (batch.length === 0 && queue.length > 0);
    }
    queues.delete(key);
  }

  /** Settles with the charge's standing, or fails as the store did; after CHARGE_TIMEOUT_MS it gives up. */
  function charge(organizationId: string, clientId: string, window: number, cost: number, ask = 0): Promise<Standing | undefined> {
    let waiting: Waiting;
    const settled = new Promise<Standing | undefined>((settle, fail) => (waiting = { clientId, cost, ask, gaveUp: false, settle, fail }));
    const key = `${organizationId} ${window}`;
    const queue = queues.get(key);
    if (queue) queue.push(waiting!);
    else {
      queues.set(key, []);
      const drained = drain(key, organizationId, window, [waiting!]).finally(() => draining.delete(drained));
      draining.add(drained);
    }
    return withTimeout(settled, CHARGE_TIMEOUT_MS).catch((error) => {
      // Still queued, it is never sent; already sent, it may yet be charged: over-charged, never under.
      waiting.gaveUp = true;
      throw error;
    });
  }

  /** Waits until no call is under way, so none grants a lease after the leases are given back. */
  async function settled() {
    while (draining.size > 0) await Promise.all(draining);
  }

  return { charge, settled };
}

export function quota(sql: Sql, clock: () => number): Quota {
  const leases = leaseBooks(sql);
  const batches = chargeBatches(sql, leases);
  const chargeInBatch = batches.charge;
  const renewing = new Set<string>();
  /** A lease running low asks for more with a charge of nothing, one at a time per client; what it gets adds up. */
  function renew(organizationId: string, clientId: string, window: number) {
    const key = `${organizationId} ${clientId} ${window}`;
    if (renewing.has(key)) return;
    renewing.add(key);
    void chargeInBatch(organizationId, clientId, window, 0, leases.size(organizationId, clientId, window))
      .catch(() => {})
      .finally(() => renewing.delete(key));
  }
  /** A charge the lease could not cover: the store decides. */
  async function chargeInStore(ctx: Context, cost: number, now: number, window: number) {
    const { organizationId, clientId } = ctx.principal!;
    let row: Standing | undefined;
    try {
      row = await chargeInBatch(organizationId, clientId, window, cost);
    } catch {
      throw unavailable();
    }
    if (!row) throw unavailable();
    if (row.outcome === 'no-api') throw planFeatureRequired(ctx.plan?.name);
    if (row.outcome === 'locked') throw subscriptionLocked();
    setStandingHeaders(ctx.headers, row.budget, row.used, now);
    switch (row.outcome) {
      case 'ok':
        ctx.charge = { window, cost };
        ctx.reportsVersion = row.reportsVersion;
        ctx.log.cost = cost;
        return;
      case 'spent':
        throw new ApiError('rate-limit-exceeded', `The subscription's hourly budget of ${row.budget} is spent.`, {
          retryAfterSeconds: secondsToReset(now),
        });
      case 'fair-share':
        throw new ApiError(
          'rate-limit-exceeded',
          `This client has used its fair share, half of the hourly budget of ${row.budget}, while other clients still have room.`,
          { retryAfterSeconds: secondsToReset(now) },
        );
      case 'revoked':
        throw invalidToken();
      default:
        throw billingUnavailable();
    }
  }

  return {
    charge(ctx, cost) {
      const { organizationId, clientId } = ctx.principal!;
      const now = clock();
      const window = windowStart(now);
      const leased = leases.spend(organizationId, clientId, window, cost);
      if (!leased) return chargeInStore(ctx, cost, now, window);
      if (leased.low) renew(organizationId, clientId, window);
      setStandingHeaders(ctx.headers, leased.budget, leased.used, now);
      ctx.charge = { window, cost, leased: true };
      ctx.reportsVersion = leased.reportsVersion;
      ctx.log.cost = cost;
    },

    async refund(ctx) {
      const charge = ctx.charge;
      if (!charge) return;
      ctx.charge = undefined;
      const { organizationId, clientId } = ctx.principal!;
      const back = charge.leased ? leases.giveBack(organizationId, clientId, charge.window, charge.cost) : undefined;
      if (back) {
        ctx.log.cost = 0;
        setStandingHeaders(ctx.headers, back.budget, back.used, clock());
        return;
      }
      try {
        const [row] = await query<{ budget: number; used: number }>(sql, 'refund-quota', [
          organizationId,
          clientId,
          new Date(charge.window),
          charge.cost,
        ]);
        ctx.log.cost = 0;
        if (row) setStandingHeaders(ctx.headers, row.budget, leases.used(organizationId, charge.window, row.used), clock());
      } catch {
        // A refund that cannot be written leaves the charge standing: the client was over-charged, never under.
      }
    },

    async standing(organizationId) {
      const window = windowStart(clock());
      const [row] = await withTimeout(query<{ budget: number; used: number }>(sql, 'get-quota-standing', [organizationId, new Date(window)]), STORE_READ_TIMEOUT_MS);
      return row && { budget: row.budget, used: leases.used(organizationId, window, row.used) };
    },

    async close() {
      await batches.settled();
      await leases.close();
    },
  };
}
