// GET /v1/organizations/{id}/segments.
import type { Answer } from '../http/answer.ts';
import type { Context } from '../http/context.ts';
import type { Admitted } from '../http/caller.ts';
import { listPage, pagingEntries } from '../http/paging.ts';
import { readQuery } from '../http/queryParams.ts';
import { adAccountsAllowed, ownOrganization } from '../auth/visibility.ts';

export function segments() {
  return function listSegments(ctx: Context, { principal, reads }: Admitted): Promise<Answer> {
    const paging = readQuery(ctx, pagingEntries);
    return listPage(reads.sql, 'list-segments', paging, {
      org: ownOrganization(ctx, principal),
      ...adAccountsAllowed(principal),
    });
  };
}
