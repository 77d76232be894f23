// Group commit for quota charges: one call to the store under way per subscription, the rest batched behind it.
import type { WithSettings } from '../../store/database.ts';
import { query } from '../../store/queries.ts';
import { withTimeout } from '../../store/timeout.ts';
import type { Leases, Standing } from './leases.ts';

/** A charge that takes longer than this is treated as a quota store that cannot be reached. */
const CHARGE_TIMEOUT_MS = 3000;

/**
 * A charge waiting for its subscription's batch; one that gave up waiting is left out of the next batch. ask: the
 * most units to lease after it (a renewal is a charge of 0 that asks).
 */
type Waiting = {
  clientId: string;
  cost: number;
  ask: number;
  gaveUp: boolean;
  settle: (row: Standing | undefined) => void;
  fail: (error: unknown) => void;
};

/** More than this many waiting charges go in more than one call. */
const MAX_BATCH = 500;

/**
 * Group commit for charges. A subscription's charges take its window row's lock one after another in any case, so a
 * process keeps one call for them under way at a time, and the charges that arrive meanwhile go together in the next
 * (charge_quota_leasing, migrations 009 and 011), which applies each in order with its own outcome. A quiet
 * subscription's charge goes at once; a busy one's share a round trip and a commit, and take a lease.
 */
export function chargeBatches(withSettings: WithSettings, leases: Leases) {
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
          withSettings((sql) =>
            query(sql, 'charge-quota-batch', {
              org: organizationId,
              window: new Date(window),
              clients: batch.map((w) => w.clientId),
              costs: batch.map((w) => w.cost),
              leases: leaseAsks(organizationId, window, batch),
            }),
          ),
          CHARGE_TIMEOUT_MS,
        );
        // Granted even to a charge that gave up waiting: the units are charged, so they must be spent or refunded.
        leases.settle(organizationId, window, batch, rows);
        // An organization without a subscription (deleted) is one row for the whole batch (charge_quota_leasing).
        const whole = rows.length === 1 && rows[0].outcome === 'no-subscription' ? rows[0] : undefined;
        for (let i = 0; i < batch.length; i++) batch[i].settle(whole ?? rows[i]);
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
  function charge(
    organizationId: string,
    clientId: string,
    window: number,
    cost: number,
    ask = 0,
  ): Promise<Standing | undefined> {
    let waiting: Waiting;
    const settled = new Promise<Standing | undefined>(
      (settle, fail) => (waiting = { clientId, cost, ask, gaveUp: false, settle, fail }),
    );
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
