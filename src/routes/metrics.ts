// GET /v1/metrics (system catalogue) and /v1/organizations/{id}/metrics (system plus custom), DECISIONS §5.
import type { Context } from '../http/context.ts';
import type { Sql } from '../store/database.ts';
import { listPage, pagingEntries } from '../http/paging.ts';
import { readQuery } from '../http/queryParams.ts';
import { ownOrganization } from '../auth/visibility.ts';

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
