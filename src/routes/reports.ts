// GET /v1/reports (what this client may read; organizationId filter) and /v1/reports/{id} (one definition).
import * as v from 'valibot';
import type { Context } from '../context.ts';
import type { Sql } from '../database.ts';
import { listPage, pagingEntries } from '../paging.ts';
import { query } from '../queries.ts';
import { readQuery } from '../queryParams.ts';
import { json } from '../respond.ts';
import { allowList, notFound, pathId } from '../visibility.ts';

const ReportsQuery = {
  ...pagingEntries,
  organizationId: v.optional(v.pipe(v.string(), v.uuid('organizationId must be a UUID'), v.toLowerCase())),
};

export function reports(sql: Sql) {
  return {
    list(ctx: Context): Promise<Response> {
      const { organizationId, ...paging } = readQuery(ctx, ReportsQuery);
      const principal = ctx.principal!;
      // Spec §4.6 rule 2: another organization's id narrows to nothing rather than failing.
      const org = organizationId ?? principal.organizationId;
      const visibleOrg = org === principal.organizationId ? org : '00000000-0000-0000-0000-000000000000';
      return listPage(sql, 'list-reports', paging, [visibleOrg, ...allowList(principal.reports), ...allowList(principal.adAccounts)]);
    },
    async get(ctx: Context): Promise<Response> {
      const principal = ctx.principal!;
      const id = pathId(ctx, 'report');
      const params = [id, principal.organizationId, ...allowList(principal.reports), ...allowList(principal.adAccounts)];
      const [row] = await query<{ item: unknown }>(sql, 'get-report', params);
      if (!row) throw notFound('report');
      return json(row.item);
    },
  };
}
