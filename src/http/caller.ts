// Who is calling, and on what plan: what authentication and the plan check put on a request's context (auth/,
// billing/), for everything after them to read.
import type { Scope } from '../dataModel.ts';

export type AllowList = readonly string[] | 'all';

/** Who is calling: what a verified token says. */
export type Principal = {
  clientId: string;
  organizationId: string;
  scopes: Scope[];
  reports: AllowList;
  adAccounts: AllowList;
  expiresAt: number;
};

/** An organization's plan, as the plan check found it (docs/decisions.md §3). */
export type Plan = {
  code: string;
  name: string;
  publicApi: boolean;
  conversionMetrics: boolean;
  budget: number;
  locked: boolean;
};
