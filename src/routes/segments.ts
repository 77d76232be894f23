// GET /v1/organizations/{id}/segments.
import type { Context } from '../context.ts';
import type { Sql } from '../database.ts';
import { listPage, pagingEntries } from '../paging.ts';
import { readQuery } from '../queryParams.ts';
import { allowList, ownOrganization } from '../visibility.ts';

export function segments(sql: Sql) {
  return function listSegments(ctx: Context): Promise<Response> {
    const paging = readQuery(ctx, pagingEntries);
    return listPage(sql, 'list-segments', paging, [ownOrganization(ctx), ...allowList(ctx.principal!.adAccounts)]);
  };
}
