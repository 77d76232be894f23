// GET /v1/me: the caller's identity, scopes, plan, quota and allow-list sizes (spec §2.4); never metered.
import type { AllowList } from '../accessTokens.ts';
import type { Context } from '../context.ts';
import type { Sql } from '../database.ts';
import { query } from '../queries.ts';
import { json } from '../respond.ts';

const size = (list: AllowList) => (list === 'all' ? 'all' : list.length);

export function me(sql: Sql, clock: () => number) {
  return async function getMe(ctx: Context): Promise<Response> {
    const principal = ctx.principal!;
    let nearestSecretExpiry: string | null = null;
    try {
      const [row] = await query<{ nearest: Date | null }>(sql, 'get-nearest-secret-expiry', [principal.clientId, new Date(clock())]);
      nearestSecretExpiry = row.nearest ? row.nearest.toISOString() : null;
    } catch {
      // /v1/me answers 200 whatever else is down; the expiry is then unknown.
    }
    return json({
      clientId: principal.clientId,
      organizationId: principal.organizationId,
      scopes: principal.scopes,
      allowList: { reports: size(principal.reports), adAccounts: size(principal.adAccounts) },
      nearestSecretExpiry,
    });
  };
}
