// What a report data request reads: the report as this client may see it.
import type { Context } from '../http/context.ts';
import type { Sql } from '../store/database.ts';
import { queryAs } from '../store/queries.ts';
import { allowList, isUuid } from '../auth/visibility.ts';
import type { CustomMetric } from './metrics.ts';
import { principalKey } from './reportCache.ts';
import { sharedReads } from '../store/sharedReads.ts';

export type ScopeAccount = {
  id: string;
  currency: string;
  status: 'ok' | 'expired' | 'permission-lost';
  fetchedAt: string | null;
  /** How many statements have changed the account's facts (migration 021): an answer's ETag moves with it. */
  writes: number;
};

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

/**
 * Every data request and every 304 reads its report: a dashboard's panels, refreshed together, ask for the same one
 * at once. They share a read begun after each of them arrived (store/sharedReads.ts), so none misses a write.
 */
const scopeReads = sharedReads<ReportScope | undefined>();

/** The report named in the path as this client may see it, read from sql; undefined when it does not exist or is out of reach. */
export async function readScope(sql: Sql, ctx: Context): Promise<ReportScope | undefined> {
  const id = (ctx.params.id ?? '').toLowerCase();
  if (!isUuid(id)) return undefined;
  const principal = ctx.principal!;
  return scopeReads(sql, `${id} ${principalKey(principal)}`, async () => {
    // Its lists are JSON, which PostgreSQL does not describe: typed here.
    const [row] = await queryAs<ReportScope>(sql, 'get-report-scope', [
      id,
      principal.organizationId,
      ...allowList(principal.reports),
      ...allowList(principal.adAccounts),
    ]);
    return row;
  });
}

/** The ad accounts in scope: the report's visible ones, narrowed by adAccountIds. */
export function accountsInScope(scope: ReportScope, adAccountIds: string[] | undefined): ScopeAccount[] {
  if (!adAccountIds) return scope.accounts;
  const wanted = new Set(adAccountIds);
  return scope.accounts.filter((account) => wanted.has(account.id));
}
