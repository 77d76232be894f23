// GET /v1/reports (what this client may read; organizationId filter) and /v1/reports/{id} (one definition).
import type { Answer } from '../http/answer.ts';
import * as v from 'valibot';
import type { Context } from '../http/context.ts';
import { envelope, listPage, pagingEntries, type ListRow } from '../http/paging.ts';
import type { Admitted } from '../http/caller.ts';
import { queryAs } from '../store/queries.ts';
import { readQuery } from '../http/queryParams.ts';
import { principalKey, reportCache } from '../report/reportCache.ts';
import { jsonText } from '../http/respond.ts';
import { adAccountsAllowed, notFound, pathId, reportsAllowed } from '../auth/visibility.ts';

const ReportsQuery = {
  ...pagingEntries,
  organizationId: v.optional(v.pipe(v.string(), v.uuid('organizationId must be a UUID'), v.toLowerCase())),
};

const NOWHERE = '00000000-0000-0000-0000-000000000000';

/** Lists and definitions are kept per version (reportCache.ts); the queries read the version they saw. */
export function reports() {
  const kept = reportCache();
  return {
    list(ctx: Context, { principal, reads, reportsVersion }: Admitted): Answer | Promise<Answer> {
      // The parsed query serves as the paging: its rest taken apart would be a new object every request.
      const paging = readQuery(ctx, ReportsQuery);
      const { organizationId } = paging;
      // docs/decisions.md §9: another organization's id narrows to nothing rather than failing.
      if (organizationId !== undefined && organizationId !== principal.organizationId) {
        return listPage(reads.sql, 'list-reports', paging, {
          org: NOWHERE,
          ...reportsAllowed(principal),
          ...adAccountsAllowed(principal),
        });
      }
      const key = `list ${principalKey(principal)} ${paging.page} ${paging.pageSize}`;
      const body = reportsVersion === undefined ? undefined : kept.get(key, reportsVersion);
      if (body !== undefined) return jsonText(body);
      const params = {
        page: paging.page,
        size: paging.pageSize,
        org: principal.organizationId,
        ...reportsAllowed(principal),
        ...adAccountsAllowed(principal),
      };
      return queryAs<ListRow & { version: number }>(reads.sql, 'list-reports', params).then(([row]) =>
        jsonText(kept.set(key, row.version, JSON.stringify(envelope(paging, row)))),
      );
    },
    async get(ctx: Context, { principal, reads, reportsVersion }: Admitted): Promise<Answer> {
      const id = pathId(ctx, 'report');
      // The answer, a definition or a 404, is kept: a report that does not exist yet is news when the version moves.
      const key = `get ${principalKey(principal)} ${id}`;
      let body = reportsVersion === undefined ? undefined : kept.get(key, reportsVersion);
      if (body === undefined) {
        const params = {
          report: id,
          org: principal.organizationId,
          ...reportsAllowed(principal),
          ...adAccountsAllowed(principal),
        };
        const [row] = await queryAs<{ item: unknown; version: number }>(reads.sql, 'get-report', params);
        body = kept.set(key, row.version, row.item === null ? '' : JSON.stringify(row.item));
      }
      if (body.length === 0) throw notFound('report');
      return jsonText(body);
    },
  };
}
