// GET /v1/organizations/{id}/segments.
import { readSql, type Context } from '../http/context.ts';
import { listPage, pagingEntries } from '../http/paging.ts';
import { readQuery } from '../http/queryParams.ts';
import { allowList, ownOrganization } from '../auth/visibility.ts';

export function segments() {
  return function listSegments(ctx: Context): Promise<Response> {
    const paging = readQuery(ctx, pagingEntries);
    return listPage(readSql(ctx), 'list-segments', paging, [
      ownOrganization(ctx),
      ...allowList(ctx.principal!.adAccounts),
    ]);
  };
}
