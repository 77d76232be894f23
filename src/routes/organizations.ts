// GET /v1/organizations (a list of one) and /v1/organizations/{id}.
import type { Context } from '../context.ts';
import type { Sql } from '../database.ts';
import { listPage, pagingEntries } from '../paging.ts';
import { query } from '../queries.ts';
import { readQuery } from '../queryParams.ts';
import { json } from '../respond.ts';
import { notFound, ownOrganization } from '../visibility.ts';

export function organizations(sql: Sql) {
  return {
    list(ctx: Context): Promise<Response> {
      return listPage(sql, 'list-organizations', readQuery(ctx, pagingEntries), [ctx.principal!.organizationId]);
    },
    async get(ctx: Context): Promise<Response> {
      const [row] = await query<{ item: unknown }>(sql, 'get-organization-record', [ownOrganization(ctx)]);
      if (!row) throw notFound('organization');
      return json(row.item);
    },
  };
}
