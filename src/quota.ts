// The hourly quota (DECISIONS §4): fixed UTC-hour windows, charged atomically in PostgreSQL, refunded on 304.
import type { Context } from './context.ts';
import type { Sql } from './database.ts';
import { ApiError } from './problem.ts';
import { query } from './queries.ts';
import { withTimeout } from './timeout.ts';

const HOUR_MS = 3600_000;
/** A charge that takes longer than this is treated as a quota store that cannot be reached. */
const CHARGE_TIMEOUT_MS = 3000;
const UNAVAILABLE_RETRY_S = 5;
/** /v1/me's read of the standing: it answers 200 whatever, so it must not wait long. */
const STORE_READ_TIMEOUT_MS = 1000;

export const windowStart = (now: number) => Math.floor(now / HOUR_MS) * HOUR_MS;
export const secondsToReset = (now: number) => Math.max(1, Math.ceil((windowStart(now) + HOUR_MS - now) / 1000));

/** IETF httpapi ratelimit headers draft, as DECISIONS §4 spells them. */
export function standingHeaders(budget: number, used: number, now: number): Record<string, string> {
  return {
    'ratelimit-policy': `"hourly";q=${budget};w=3600`,
    ratelimit: `"hourly";r=${Math.max(budget - used, 0)};t=${secondsToReset(now)}`,
  };
}

const unavailable = () =>
  new ApiError('rate-limiter-unavailable', 'Requests cannot be metered right now, so none are served. Retry shortly.', {
    retryAfterSeconds: UNAVAILABLE_RETRY_S,
  });

export const planFeatureRequired = (planName = 'current') =>
  new ApiError('plan-feature-required', `The ${planName} plan does not include API access.`);

export const subscriptionLocked = () =>
  new ApiError('subscription-locked', 'The subscription is over its plan limits and read-locked; only /v1/me answers.');

export type Charge = { window: number; cost: number };

export type Quota = {
  charge(ctx: Context, cost: number): Promise<void>;
  /** Gives back the request's charge (a 304 costs nothing), updating its standing headers. */
  refund(ctx: Context): Promise<void>;
  standing(organizationId: string): Promise<{ budget: number; used: number } | undefined>;
};

type Standing = { outcome: string; budget: number; used: number; reportsVersion: number };

/** A charge waiting for its subscription's batch; one that gave up waiting is left out of the next batch. */
type Waiting = { clientId: string; cost: number; gaveUp: boolean; settle: (row: Standing | undefined) => void; fail: (error: unknown) => void };

/** More than this many waiting charges go in more than one call. */
const MAX_BATCH = 500;

/**
 * Group commit for charges. A subscription's charges take its window row's lock one after another in any case, so a
 * process keeps one call for them under way at a time, and the charges that arrive meanwhile go together in the next
 * (charge_quota_batch, migration 009), which applies each in order with its own outcome. A quiet subscription's
 * charge goes at once; a busy one's share a round trip and a commit.
 */
function chargeBatches(sql: Sql) {
  const queues = new Map<string, Waiting[]>();

  async function drain(key: string, organizationId: string, window: number, batch: Waiting[]) {
    while (batch.length > 0) {
      try {
        // A call the store never answers must not hold the subscription's later charges behind it.
        const rows = await withTimeout(
          query<Standing>(sql, 'charge-quota-batch', [organizationId, new Date(window), batch.map((w) => w.clientId), batch.map((w) => w.cost)]),
          CHARGE_TIMEOUT_MS,
        );
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
  return function charge(organizationId: string, clientId: string, window: number, cost: number): Promise<Standing | undefined> {
    let waiting: Waiting;
    const settled = new Promise<Standing | undefined>((settle, fail) => (waiting = { clientId, cost, gaveUp: false, settle, fail }));
    const key = `${organizationId} ${window}`;
    const queue = queues.get(key);
    if (queue) queue.push(waiting!);
    else {
      queues.set(key, []);
      void drain(key, organizationId, window, [waiting!]);
    }
    return withTimeout(settled, CHARGE_TIMEOUT_MS).catch((error) => {
      // Still queued, it is never sent; already sent, it may yet be charged: over-charged, never under.
      waiting.gaveUp = true;
      throw error;
    });
  };
}

export function quota(sql: Sql, clock: () => number): Quota {
  const chargeInBatch = chargeBatches(sql);
  return {
    async charge(ctx, cost) {
      const { organizationId, clientId } = ctx.principal!;
      const now = clock();
      const window = windowStart(now);
      let row: Standing | undefined;
      try {
        row = await chargeInBatch(organizationId, clientId, window, cost);
      } catch {
        throw unavailable();
      }
      if (!row) throw unavailable();
      if (row.outcome === 'no-api') throw planFeatureRequired(ctx.plan?.name);
      if (row.outcome === 'locked') throw subscriptionLocked();
      Object.assign(ctx.headers, standingHeaders(row.budget, row.used, now));
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
          throw new ApiError('invalid-token', 'The access token is missing, malformed, expired or no longer valid. Request a new token.', {
            headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
          });
        default:
          throw new ApiError('billing-unavailable', 'The plan could not be established.', { retryAfterSeconds: 60 });
      }
    },

    async refund(ctx) {
      const charge = ctx.charge;
      if (!charge) return;
      ctx.charge = undefined;
      const { organizationId, clientId } = ctx.principal!;
      try {
        const [row] = await query<{ budget: number; used: number }>(sql, 'refund-quota', [
          organizationId,
          clientId,
          new Date(charge.window),
          charge.cost,
        ]);
        ctx.log.cost = 0;
        if (row) Object.assign(ctx.headers, standingHeaders(row.budget, row.used, clock()));
      } catch {
        // A refund that cannot be written leaves the charge standing: the client was over-charged, never under.
      }
    },

    async standing(organizationId) {
      const [row] = await withTimeout(query<{ budget: number; used: number }>(sql, 'get-quota-standing', [organizationId, new Date(windowStart(clock()))]), STORE_READ_TIMEOUT_MS);
      return row;
    },
  };
}
