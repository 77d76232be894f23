// GET /v1/organizations/{id}/campaigns: cut by the ad-account allow-list; filters adAccountId and name.
import type { Answer } from '../http/answer.ts';
import * as v from 'valibot';
import type { Context } from '../http/context.ts';
import type { Admitted } from '../http/caller.ts';
import { listPage, pagingEntries } from '../http/paging.ts';
import { readQuery } from '../http/queryParams.ts';
import { adAccountsAllowed, ownOrganization } from '../auth/visibility.ts';

const CampaignsQuery = {
  ...pagingEntries,
  adAccountId: v.optional(v.pipe(v.string(), v.uuid('adAccountId must be a UUID'), v.toLowerCase())),
  name: v.optional(v.pipe(v.string(), v.maxLength(200, 'name must be at most 200 characters'))),
};

export function campaigns() {
  return function listCampaigns(ctx: Context, { principal, reads }: Admitted): Promise<Answer> {
    const { adAccountId, name, ...paging } = readQuery(ctx, CampaignsQuery);
    const org = ownOrganization(ctx, principal);
    return listPage(reads.sql, 'list-campaigns', paging, {
      org,
      ...adAccountsAllowed(principal),
      adAccount: adAccountId ?? null,
      name: name || null,
    });
  };
}
