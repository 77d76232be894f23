// GET /v1/me: the caller's identity, scopes, plan, quota and allow-list sizes (docs/decisions.md §4, §9); never
// metered, 200 whatever the store does, and 401 once the store says the caller's organization is gone.
import type { Answer } from '../http/answer.ts';
import type { AllowList, Principal } from '../auth/accessTokens.ts';
import type { Sql } from '../store/database.ts';
import type { Plans } from '../billing/plans.ts';
import { query } from '../store/queries.ts';
import { secondsToReset, type Quota } from '../billing/quota/charging.ts';
import { json } from '../http/respond.ts';
import { withTimeout } from '../store/timeout.ts';
import { invalidToken } from '../http/problem.ts';

/** /v1/me answers 200 whatever the store does, so none of its reads waits longer than this. */
const READ_TIMEOUT_MS = 1000;

/** The quota's standing could not be read (the store down or slow): answered as unavailable, not as gone. */
const UNAVAILABLE = Symbol('unavailable');

const size = (list: AllowList) => (list === 'all' ? 'all' : list.length);

export type MeDeps = { sql: Sql; clock: () => number; plans: Plans; quota: Quota };

export function me({ sql, clock, plans, quota }: MeDeps) {
  return async function getMe(principal: Principal): Promise<Answer> {
    const now = clock();
    const resetAt = new Date(now + secondsToReset(now) * 1000);
    resetAt.setUTCMinutes(0, 0, 0);
    const [nearest, planStanding, quotaRead] = await Promise.all([
      withTimeout(
        query(sql, 'get-nearest-secret-expiry', { client: principal.clientId, now: new Date(now) }),
        READ_TIMEOUT_MS,
      ).then(
        ([row]) => row.nearest?.toISOString() ?? null,
        () => null,
      ),
      plans.standing(principal.organizationId),
      quota.standing(principal.organizationId).catch((): typeof UNAVAILABLE => UNAVAILABLE),
    ]);
    // The store answered, and holds no subscription for the organization: it was deleted, and the token names nobody.
    if (quotaRead === undefined || planStanding.gone) throw invalidToken();
    const quotaStanding = quotaRead === UNAVAILABLE ? undefined : quotaRead;
    const limitPerHour = quotaStanding?.budget ?? planStanding.plan?.budget ?? 0;
    return json({
      clientId: principal.clientId,
      organizationId: principal.organizationId,
      scopes: principal.scopes,
      plan: { code: planStanding.plan?.code ?? 'unknown', state: planStanding.state },
      quota: quotaStanding
        ? {
            limitPerHour,
            remaining: Math.max(quotaStanding.budget - quotaStanding.used, 0),
            resetAt: resetAt.toISOString(),
            state: 'ok',
          }
        : // docs/decisions.md §4: when unavailable, remaining and resetAt are not live values.
          { limitPerHour, remaining: 0, resetAt: resetAt.toISOString(), state: 'unavailable' },
      allowList: { reports: size(principal.reports), adAccounts: size(principal.adAccounts) },
      nearestSecretExpiry: nearest,
    });
  };
}
