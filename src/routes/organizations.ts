// GET /v1/organizations (a list of one) and /v1/organizations/{id}.
import type { Answer } from '../http/answer.ts';
import type { Context } from '../http/context.ts';
import type { Admitted } from '../http/caller.ts';
import { listPage, pagingEntries } from '../http/paging.ts';
import { query } from '../store/queries.ts';
import { readQuery } from '../http/queryParams.ts';
import { json } from '../http/respond.ts';
import { notFound, ownOrganization } from '../auth/visibility.ts';

export function organizations() {
  return {
    list(ctx: Context, { principal, reads }: Admitted): Promise<Answer> {
      return listPage(reads.sql, 'list-organizations', readQuery(ctx, pagingEntries), {
        org: principal.organizationId,
      });
    },
    async get(ctx: Context, { principal, reads }: Admitted): Promise<Answer> {
      const [row] = await query(reads.sql, 'get-organization-record', { org: ownOrganization(ctx, principal) });
      if (!row) throw notFound('organization');
      return json(row.item);
    },
  };
}
