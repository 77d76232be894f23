// What a report data request reads: the report as this client may see it.
import type { Context } from '../http/context.ts';
import type { Principal } from '../http/caller.ts';
import type { Sql } from '../store/database.ts';
import { query, queryAs } from '../store/queries.ts';
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
  /** What migration 023 makes of the rows this was read from, in the same snapshot. */
  fingerprint: string;
};

/**
 * Every data request and every 304 reads its report: a dashboard's panels, refreshed together, ask for the same one
 * at once. They share a read begun after each of them arrived (store/sharedReads.ts), so none misses a write.
 */
const scopeReads = sharedReads<ReportScope | undefined>();

/** The report named in the path as this client may see it, read from sql; undefined when it does not exist or is out of reach. */
export function readScope(sql: Sql, ctx: Context): Promise<ReportScope | undefined> {
  return readScopeOf(sql, ctx.params.id ?? '', ctx.principal!);
}

/** The report with this id (as the path gives it) as this principal may see it; undefined when out of reach. */
export async function readScopeOf(sql: Sql, pathId: string, principal: Principal): Promise<ReportScope | undefined> {
  const id = pathId.toLowerCase();
  if (!isUuid(id)) return undefined;
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

/** The scope last read for each report and caller, per database. */
const keptScopes = new WeakMap<Sql, Map<string, ReportScope>>();
const KEPT_SCOPES = 1024;
const currentReads = sharedReads<ReportScope | undefined>();

/**
 * The report as a read begun now would find it, as readScopeOf gives it: the scope kept from this function's last read
 * when a fingerprint read begun now (migration 023) finds the same rows, else read afresh and kept. One row of text
 * instead of the scope's lists, and the checks and ETags worked out for it kept too. Shared as the scope's reads are:
 * requests that arrive together get the same promise.
 */
export function currentScope(sql: Sql, pathId: string, principal: Principal): Promise<ReportScope | undefined> {
  const id = pathId.toLowerCase();
  if (!isUuid(id)) return Promise.resolve(undefined);
  const key = `${id} ${principalKey(principal)}`;
  return currentReads(sql, key, async () => {
    let kept = keptScopes.get(sql);
    if (!kept) keptScopes.set(sql, (kept = new Map()));
    const last = kept.get(key);
    if (last) {
      const [row] = await query(sql, 'get-report-fingerprint', [
        id,
        principal.organizationId,
        ...allowList(principal.reports),
        ...allowList(principal.adAccounts),
      ]);
      if (row?.fingerprint === last.fingerprint) return last;
    }
    const scope = await readScopeOf(sql, id, principal);
    kept.delete(key);
    if (kept.size >= KEPT_SCOPES) kept.delete(kept.keys().next().value!);
    if (scope) kept.set(key, scope);
    return scope;
  });
}

/** The ad accounts in scope: the report's visible ones, narrowed by adAccountIds. */
export function accountsInScope(scope: ReportScope, adAccountIds: string[] | undefined): ScopeAccount[] {
  if (!adAccountIds) return scope.accounts;
  const wanted = new Set(adAccountIds);
  return scope.accounts.filter((account) => wanted.has(account.id));
}
