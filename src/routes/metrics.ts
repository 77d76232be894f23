// GET /v1/metrics (system catalogue) and /v1/organizations/{id}/metrics (system plus custom), docs/decisions.md §5.
import { readSql, type Context } from '../http/context.ts';
import { listPage, pagingEntries } from '../http/paging.ts';
import { readQuery } from '../http/queryParams.ts';
import { ownOrganization } from '../auth/visibility.ts';

export function metrics() {
  return {
    system(ctx: Context): Promise<Response> {
      return listPage(readSql(ctx), 'list-system-metrics', readQuery(ctx, pagingEntries));
    },
    organization(ctx: Context): Promise<Response> {
      const paging = readQuery(ctx, pagingEntries);
      return listPage(readSql(ctx), 'list-organization-metrics', paging, [ownOrganization(ctx)]);
    },
  };
}
