// The hourly quota (docs/decisions.md §4): fixed UTC-hour windows, charged atomically in PostgreSQL, refunded on 304.
import type { Context } from '../../http/context.ts';
import { chargedCaller, type Caller, type Charged } from '../../http/caller.ts';
import type { WithSettings, Sql } from '../../store/database.ts';
import {
  ApiError,
  billingUnavailable,
  invalidToken,
  planFeatureRequired,
  subscriptionLocked,
} from '../../http/problem.ts';
import { query } from '../../store/queries.ts';
import { withTimeout } from '../../store/timeout.ts';
import { chargeBatches } from './batches.ts';
import { leaseBooks, type Standing } from './leases.ts';

const HOUR_MS = 3600_000;
const UNAVAILABLE_RETRY_S = 5;
/** /v1/me's read of the standing: it answers 200 whatever, so it must not wait long. */
const STORE_READ_TIMEOUT_MS = 1000;

export const windowStart = (now: number) => Math.floor(now / HOUR_MS) * HOUR_MS;
export const secondsToReset = (now: number) => Math.max(1, Math.ceil((windowStart(now) + HOUR_MS - now) / 1000));

/** Sets the IETF httpapi ratelimit headers draft's two headers (docs/decisions.md §4) among a response's. */
export function setStandingHeaders(headers: Record<string, string>, budget: number, used: number, now: number): void {
  headers['ratelimit-policy'] = `"hourly";q=${budget};w=3600`;
  headers.ratelimit = `"hourly";r=${Math.max(budget - used, 0)};t=${secondsToReset(now)}`;
}

const unavailable = () =>
  new ApiError('rate-limiter-unavailable', 'Requests cannot be metered right now, so none are served. Retry shortly.', {
    retryAfterSeconds: UNAVAILABLE_RETRY_S,
  });

export type Quota = {
  /** Charges the request: at once from a lease, or after the store's answer. */
  charge(ctx: Context, caller: Caller, cost: number): Charged | Promise<Charged>;
  /** Gives back the request's charge (a 304 costs nothing), updating its standing headers. */
  refund(ctx: Context): void | Promise<void>;
  standing(organizationId: string): Promise<{ budget: number; used: number } | undefined>;
  /** Gives back every lease's unspent units: on shutdown, before the database closes. */
  close(): Promise<void>;
};

/**
 * withSettings: runs the charges and refunds, which wait on a window's lock, with the shared pool's statement timeout
 * in force (localSettings; behind a transaction pooler it is set for each).
 */
export function quota(sql: Sql, clock: () => number, withSettings: WithSettings = (work) => work(sql)): Quota {
  const leases = leaseBooks(withSettings);
  const batches = chargeBatches(withSettings, leases);
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
  async function chargeInStore(ctx: Context, caller: Caller, cost: number, now: number, window: number) {
    const { organizationId, clientId } = caller.principal;
    let row: Standing | undefined;
    try {
      row = await chargeInBatch(organizationId, clientId, window, cost);
    } catch {
      throw unavailable();
    }
    if (!row) throw unavailable();
    return chargedBy(ctx, caller, row, { window, cost, now });
  }

  return {
    charge(ctx, caller, cost) {
      const { organizationId, clientId } = caller.principal;
      const now = clock();
      const window = windowStart(now);
      const leased = leases.spend(organizationId, clientId, window, cost);
      if (!leased) return chargeInStore(ctx, caller, cost, now, window);
      if (leased.low) renew(organizationId, clientId, window);
      setStandingHeaders(ctx.headers, leased.budget, leased.used, now);
      ctx.charged = { principal: caller.principal, charge: { window, cost, leased: true } };
      ctx.log.cost = cost;
      return chargedCaller(caller, leased.reportsVersion);
    },

    refund(ctx) {
      const charged = ctx.charged;
      if (!charged) return;
      ctx.charged = undefined;
      const { charge } = charged;
      const { organizationId, clientId } = charged.principal;
      // Into the client's lease while it lasts, at once; otherwise the store takes it back.
      const back = charge.leased ? leases.giveBack(organizationId, clientId, charge.window, charge.cost) : undefined;
      if (back) {
        ctx.log.cost = 0;
        setStandingHeaders(ctx.headers, back.budget, back.used, clock());
        return;
      }
      return withSettings((sql) =>
        query(sql, 'refund-quota', {
          org: organizationId,
          client: clientId,
          window: new Date(charge.window),
          units: charge.cost,
        }),
      ).then(
        ([row]) => {
          ctx.log.cost = 0;
          if (!row) return;
          setStandingHeaders(ctx.headers, row.budget, leases.used(organizationId, charge.window, row.used), clock());
        },
        // A refund that cannot be written leaves the charge standing: the client was over-charged, never under.
        () => {},
      );
    },

    async standing(organizationId) {
      const window = windowStart(clock());
      const [row] = await withTimeout(
        query(sql, 'get-quota-standing', { org: organizationId, window: new Date(window) }),
        STORE_READ_TIMEOUT_MS,
      );
      return row && { budget: row.budget, used: leases.used(organizationId, window, row.used) };
    },

    async close() {
      await batches.settled();
      await leases.close();
    },
  };
}

/** What the store's answer to a charge means for the request: charged, or refused with its problem. */
function chargedBy(
  ctx: Context,
  caller: Caller,
  row: Standing,
  { window, cost, now }: { window: number; cost: number; now: number },
): Charged {
  if (row.outcome === 'no-api') throw planFeatureRequired(caller.plan.name);
  if (row.outcome === 'locked') throw subscriptionLocked();
  setStandingHeaders(ctx.headers, row.budget, row.used, now);
  switch (row.outcome) {
    case 'ok':
      ctx.charged = { principal: caller.principal, charge: { window, cost } };
      ctx.log.cost = cost;
      return chargedCaller(caller, row.reportsVersion);
    case 'spent':
      throw new ApiError('rate-limit-exceeded', `The subscription's hourly budget of ${row.budget} is spent.`, {
        retryAfterSeconds: secondsToReset(now),
      });
    case 'fair-share':
      throw new ApiError(
        'rate-limit-exceeded',
        `This client has used its fair share, half of the hourly budget of ${row.budget}, ` +
          'while other clients still have room.',
        { retryAfterSeconds: secondsToReset(now) },
      );
    // The client revoked, or its organization deleted (it has no subscription): the token names nobody.
    case 'revoked':
    case 'no-subscription':
      throw invalidToken();
    default:
      throw billingUnavailable();
  }
}
