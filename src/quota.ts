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

export function quota(sql: Sql, clock: () => number): Quota {
  return {
    async charge(ctx, cost) {
      const { organizationId, clientId } = ctx.principal!;
      const now = clock();
      const window = windowStart(now);
      let row: { outcome: string; budget: number; used: number } | undefined;
      try {
        [row] = await withTimeout(query(sql, 'charge-quota', [organizationId, clientId, new Date(window), cost]), CHARGE_TIMEOUT_MS);
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
