// What a report data request reads: the report as this client may see it.
import type { Context } from '../http/context.ts';
import type { Sql } from '../store/database.ts';
import { queryAs } from '../store/queries.ts';
import { allowList, isUuid } from '../auth/visibility.ts';
import type { CustomMetric } from './metrics.ts';

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

/** The report named in the path as this client may see it, read from sql; undefined when it does not exist or is out of reach. */
export async function readScope(sql: Sql, ctx: Context): Promise<ReportScope | undefined> {
  const id = ctx.params.id ?? '';
  if (!isUuid(id)) return undefined;
  const principal = ctx.principal!;
  // Its lists are JSON, which PostgreSQL does not describe: typed here.
  const [row] = await queryAs<ReportScope>(sql, 'get-report-scope', [
    id.toLowerCase(),
    principal.organizationId,
    ...allowList(principal.reports),
    ...allowList(principal.adAccounts),
  ]);
  return row;
}

/** The ad accounts in scope: the report's visible ones, narrowed by adAccountIds. */
export function accountsInScope(scope: ReportScope, adAccountIds: string[] | undefined): ScopeAccount[] {
  if (!adAccountIds) return scope.accounts;
  const wanted = new Set(adAccountIds);
  return scope.accounts.filter((account) => wanted.has(account.id));
}
