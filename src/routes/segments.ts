// GET /v1/organizations/{id}/segments.
import type { Context } from '../http/context.ts';
import type { Sql } from '../store/database.ts';
import { listPage, pagingEntries } from '../http/paging.ts';
import { readQuery } from '../http/queryParams.ts';
import { allowList, ownOrganization } from '../auth/visibility.ts';

export function segments(sql: Sql) {
  return function listSegments(ctx: Context): Promise<Response> {
    const paging = readQuery(ctx, pagingEntries);
    return listPage(sql, 'list-segments', paging, [ownOrganization(ctx), ...allowList(ctx.principal!.adAccounts)]);
  };
}
