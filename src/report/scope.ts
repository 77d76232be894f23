// What a report data request reads: the report as this client may see it.
import type { Context } from '../http/context.ts';
import type { Principal } from '../http/caller.ts';
import type { Sql } from '../store/database.ts';
import { queryAs, type QueryRow } from '../store/queries.ts';
import { adAccountsAllowed, isUuid, reportsAllowed } from '../auth/visibility.ts';
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

/** The report named in the path as this client may see it, as a read begun now finds it (currentScope). */
export function readScope(sql: Sql, ctx: Context, principal: Principal): Promise<ReportScope | undefined> {
  return currentScope(sql, ctx.params.id ?? '', principal);
}

/**
 * The whole scope of report id as this principal may see it, and the snapshot it was read in; undefined when out of
 * reach.
 */
async function readWhole(sql: Sql, id: string, principal: Principal): Promise<Kept | undefined> {
  // Its lists are JSON, which PostgreSQL does not describe: typed here.
  const [row] = await queryAs<ReportScope & Pick<Kept, 'snapshot'>>(
    sql,
    'get-report-scope',
    scopeParams(id, principal),
  );
  if (!row) return undefined;
  const { snapshot, ...scope } = row;
  return { scope, snapshot };
}

/** get-report-scope's and get-report-fingerprint's parameters: the report, and what the caller may see. */
const scopeParams = (id: string, principal: Principal) => ({
  report: id,
  org: principal.organizationId,
  ...reportsAllowed(principal),
  ...adAccountsAllowed(principal),
});

/** A scope as last read, and the snapshot it is known to hold in (get-report-fingerprint; null on a standby). */
type Kept = { scope: ReportScope; snapshot: string | null };

type Fingerprint = QueryRow<'get-report-fingerprint'>;

/** The scope last read for each report and caller, per database. */
const keptScopes = new WeakMap<Sql, Map<string, Kept>>();
const KEPT_SCOPES = 1024;
const currentReads = sharedReads<ReportScope | undefined>();

/**
 * The report as a read begun now would find it. Every data request and every 304 reads its report, and a dashboard's
 * panels, refreshed together, ask for the same one at once: they share a read begun after each of them arrived
 * (store/sharedReads.ts), so none misses a write. That read is one row of text: the snapshot it reads in, and unless
 * no transaction has ended since the kept scope was known to hold (sql/queries/get-report-fingerprint.sql), the scope's
 * fingerprint (migration 023). While either matches, the scope kept from the last whole read is the answer, with the
 * checks and ETags worked out for it (report/request.ts). Otherwise the whole scope is read, and kept.
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
      const params = { ...scopeParams(id, principal), snapshot: last.snapshot };
      const [{ snapshot, fingerprint }] = await queryAs<Fingerprint>(sql, 'get-report-fingerprint', params);
      if (snapshot !== null && snapshot === last.snapshot) return last.scope;
      if (fingerprint === last.scope.fingerprint) {
        last.snapshot = snapshot;
        return last.scope;
      }
    }
    const read = await readWhole(sql, id, principal);
    kept.delete(key);
    if (kept.size >= KEPT_SCOPES) kept.delete(kept.keys().next().value!);
    if (read) kept.set(key, read);
    return read?.scope;
  });
}

/** The ad accounts in scope: the report's visible ones, narrowed by adAccountIds. */
export function accountsInScope(scope: ReportScope, adAccountIds: string[] | undefined): ScopeAccount[] {
  if (!adAccountIds) return scope.accounts;
  const wanted = new Set(adAccountIds);
  return scope.accounts.filter((account) => wanted.has(account.id));
}
