// GET /v1/metrics (system catalogue) and /v1/organizations/{id}/metrics (system plus custom), docs/decisions.md §5.
import type { Answer } from '../http/answer.ts';
import type { Context } from '../http/context.ts';
import type { Admitted } from '../http/caller.ts';
import { listPage, pagingEntries } from '../http/paging.ts';
import { readQuery } from '../http/queryParams.ts';
import { ownOrganization } from '../auth/visibility.ts';

export function metrics() {
  return {
    system(ctx: Context, { reads }: Admitted): Promise<Answer> {
      return listPage(reads.sql, 'list-system-metrics', readQuery(ctx, pagingEntries));
    },
    organization(ctx: Context, { principal, reads }: Admitted): Promise<Answer> {
      const paging = readQuery(ctx, pagingEntries);
      return listPage(reads.sql, 'list-organization-metrics', paging, { org: ownOrganization(ctx, principal) });
    },
  };
}
