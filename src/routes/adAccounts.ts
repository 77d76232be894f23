// GET /v1/organizations/{id}/ad-accounts: cut by the ad-account allow-list, optionally by platform.
import type { Answer } from '../http/answer.ts';
import * as v from 'valibot';
import type { Context } from '../http/context.ts';
import type { Admitted } from '../http/caller.ts';
import { listPage, pagingEntries } from '../http/paging.ts';
import { readQuery } from '../http/queryParams.ts';
import { adAccountsAllowed, ownOrganization } from '../auth/visibility.ts';
import { PLATFORMS } from '../dataModel.ts';

const AdAccountsQuery = {
  ...pagingEntries,
  platform: v.optional(v.picklist(PLATFORMS, `platform must be one of ${PLATFORMS.join(', ')}`)),
};

export function adAccounts() {
  return function listAdAccounts(ctx: Context, { principal, reads }: Admitted): Promise<Answer> {
    const { platform, ...paging } = readQuery(ctx, AdAccountsQuery);
    const org = ownOrganization(ctx, principal);
    return listPage(reads.sql, 'list-ad-accounts', paging, {
      org,
      ...adAccountsAllowed(principal),
      platform: platform ?? null,
    });
  };
}
