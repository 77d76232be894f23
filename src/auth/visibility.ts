// docs/decisions.md §9: what a client may see. Out of reach answers exactly as nonexistent; filters out of reach give
// empty pages.
import type { Principal } from './accessTokens.ts';
import type { Context } from '../http/context.ts';
import { ApiError } from '../http/problem.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string) => UUID.test(value);

/** The same answer for "does not exist", "another organization's" and "not on the allow-list". */
export const notFound = (what: string) =>
  new ApiError('not-found', `No ${what} exists at this path, or this client may not read it.`);

/** A path id that is no UUID names nothing: 404, as for any other unknown id. */
export function pathId(ctx: Context, what: string, name = 'id'): string {
  const id = ctx.params[name] ?? '';
  if (!isUuid(id)) throw notFound(what);
  return id.toLowerCase();
}

/** The organization in the path, which must be the one this client reads. */
export function ownOrganization(ctx: Context, principal: Principal): string {
  const id = pathId(ctx, 'organization');
  if (id !== principal.organizationId) throw notFound('organization');
  return id;
}

/** A principal's report allow-list as the queries take it: :reportsAll, or :reportIds. */
export const reportsAllowed = ({ reports }: Pick<Principal, 'reports'>) =>
  reports === 'all' ? { reportsAll: true, reportIds: [] } : { reportsAll: false, reportIds: [...reports] };

/** A principal's ad-account allow-list as the queries take it: :adAccountsAll, or :adAccountIds. */
export const adAccountsAllowed = ({ adAccounts }: Pick<Principal, 'adAccounts'>) =>
  adAccounts === 'all'
    ? { adAccountsAll: true, adAccountIds: [] }
    : { adAccountsAll: false, adAccountIds: [...adAccounts] };
