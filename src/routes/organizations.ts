// GET /v1/organizations (a list of one) and /v1/organizations/{id}.
import { readSql, type Context } from '../http/context.ts';
import { listPage, pagingEntries } from '../http/paging.ts';
import { query } from '../store/queries.ts';
import { readQuery } from '../http/queryParams.ts';
import { json } from '../http/respond.ts';
import { notFound, ownOrganization } from '../auth/visibility.ts';

export function organizations() {
  return {
    list(ctx: Context): Promise<Response> {
      return listPage(readSql(ctx), 'list-organizations', readQuery(ctx, pagingEntries), [
        ctx.principal!.organizationId,
      ]);
    },
    async get(ctx: Context): Promise<Response> {
      const [row] = await query(readSql(ctx), 'get-organization-record', [ownOrganization(ctx)]);
      if (!row) throw notFound('organization');
      return json(row.item);
    },
  };
}
