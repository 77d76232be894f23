// The hourly quota (docs/decisions.md §4): fixed UTC-hour windows, charged atomically in PostgreSQL, refunded on 304.
import type { Context } from '../../http/context.ts';
import type { Principal } from '../../http/caller.ts';
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
  charge(ctx: Context, cost: number): void | Promise<void>;
  /**
   * A charge the client's lease covers, for an answer kept in memory: taken only when answerable(reportsVersion) is
   * true for the version the lease was granted at. The standing after it, or undefined with nothing charged.
   */
  chargeLeased(
    principal: Principal,
    cost: number,
    answerable: (reportsVersion: number) => boolean,
  ): { budget: number; used: number; now: number } | undefined;
  /**
   * For an answer that costs nothing in the end (a 304, docs/decisions.md §4): the standing a charge of cost leaves
   * once given back, when the client's lease covers it; undefined, for the store to decide, when it does not. A client
   * whose budget is spent holds no lease that covers anything.
   */
  leasedRefund(principal: Principal, cost: number): { budget: number; used: number; now: number } | undefined;
  /** Gives back the request's charge (a 304 costs nothing), updating its standing headers. */
  refund(ctx: Context): Promise<void>;
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

    chargeLeased({ organizationId, clientId }, cost, answerable) {
      const now = clock();
      const window = windowStart(now);
      const version = leases.covers(organizationId, clientId, window, cost);
      if (version === undefined || !answerable(version)) return undefined;
      const leased = leases.spend(organizationId, clientId, window, cost)!;
      if (leased.low) renew(organizationId, clientId, window);
      return { budget: leased.budget, used: leased.used, now };
    },

    leasedRefund({ organizationId, clientId }, cost) {
      const now = clock();
      const standing = leases.standing(organizationId, clientId, windowStart(now), cost);
      return standing && { ...standing, now };
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
        const [row] = await withSettings((sql) =>
          query(sql, 'refund-quota', [organizationId, clientId, new Date(charge.window), charge.cost]),
        );
        ctx.log.cost = 0;
        if (row)
          setStandingHeaders(ctx.headers, row.budget, leases.used(organizationId, charge.window, row.used), clock());
      } catch {
        // A refund that cannot be written leaves the charge standing: the client was over-charged, never under.
      }
    },

    async standing(organizationId) {
      const window = windowStart(clock());
      const [row] = await withTimeout(
        query(sql, 'get-quota-standing', [organizationId, new Date(window)]),
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
