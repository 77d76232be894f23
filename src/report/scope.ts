// What a report data request reads: the report as this client may see it, loaded once per request.
import type { Context } from '../http/context.ts';
import type { Sql } from '../store/database.ts';
import { query } from '../store/queries.ts';
import { allowList, isUuid } from '../auth/visibility.ts';
import type { CustomMetric } from './metrics.ts';
import { adAccountIdsForCost } from './params.ts';

export type ScopeAccount = { id: string; currency: string; status: 'ok' | 'expired' | 'permission-lost'; fetchedAt: string | null };

export type ReportScope = {
  id: string;
  name: string;
  kind: 'standard' | 'segment' | 'months';
  currency: string;
  metrics: string[];
  groupings: string[];
  /** Changes whenever the definition does. */
  version: string;
  /** The report's ad accounts this client may see. */
  accounts: ScopeAccount[];
  segments: { id: string; campaigns: string[] }[];
  custom_metrics: CustomMetric[];
};

const scopes = new WeakMap<Context, Promise<ReportScope | undefined>>();

/** The report named in the path, or undefined when it does not exist or is out of reach. Cached on the request. */
export function reportScope(sql: Sql, ctx: Context): Promise<ReportScope | undefined> {
  let scope = scopes.get(ctx);
  if (!scope) {
    const id = ctx.params.id ?? '';
    const principal = ctx.principal!;
    scope = isUuid(id)
      ? query<ReportScope>(sql, 'get-report-scope', [id.toLowerCase(), principal.organizationId, ...allowList(principal.reports), ...allowList(principal.adAccounts)]).then(
          ([row]) => row,
        )
      : Promise.resolve(undefined);
    scopes.set(ctx, scope);
  }
  return scope;
}

/** The ad accounts in scope: the report's visible ones, narrowed by adAccountIds. */
export function accountsInScope(scope: ReportScope, adAccountIds: string[] | undefined): ScopeAccount[] {
  if (!adAccountIds) return scope.accounts;
  const wanted = new Set(adAccountIds);
  return scope.accounts.filter((account) => wanted.has(account.id));
}

/** DECISIONS §4: report data costs the number of ad accounts in scope, at least 1. */
export function dataCost(sql: Sql) {
  return async function costOfData(ctx: Context): Promise<number> {
    let scope: ReportScope | undefined;
    try {
      scope = await reportScope(sql, ctx);
    } catch {
      // The store did not answer: the charge that follows will say so; the handler asks again if it gets that far.
      scopes.delete(ctx);
      return 1;
    }
    return scope ? Math.max(1, accountsInScope(scope, adAccountIdsForCost(ctx)).length) : 1;
  };
}
