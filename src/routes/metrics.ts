// GET /v1/metrics (system catalogue) and /v1/organizations/{id}/metrics (system plus custom), DECISIONS §5.
import type { Context } from '../context.ts';
import type { Sql } from '../database.ts';
import { listPage, pagingEntries } from '../paging.ts';
import { readQuery } from '../queryParams.ts';
import { ownOrganization } from '../visibility.ts';

export function metrics(sql: Sql) {
  return {
    system(ctx: Context): Promise<Response> {
      return listPage(sql, 'list-system-metrics', readQuery(ctx, pagingEntries));
    },
    organization(ctx: Context): Promise<Response> {
      const paging = readQuery(ctx, pagingEntries);
      return listPage(sql, 'list-organization-metrics', paging, [ownOrganization(ctx)]);
    },
  };
}
