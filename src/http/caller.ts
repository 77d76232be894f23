// Who is calling, and on what plan: what authentication and the plan check put on a request's context (auth/,
// billing/), for everything after them to read.
import type { Scope } from '../dataModel.ts';
import type { ReadSource } from '../store/replicas.ts';

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

/** Who calls, on what plan: what admission (authenticate, plan, lock, scope) passes on (docs/decisions.md §4). */
export type Caller = { principal: Principal; plan: Plan };

/** A caller charged for this request; reportsVersion: the organization's report version read with the charge. */
export type Charged = Caller & { reportsVersion: number | undefined };

/** A charged caller and where its reads run: the primary, or a standby that has replayed what it must see. */
export type Admitted = Charged & { reads: ReadSource };

// Each step's value is written out field by field, not spread from the last with a field added: V8 builds the spread
// copy's shape at run time, on every cheap request (BENCHMARKS.md, "What makes it fast").

export function chargedCaller({ principal, plan }: Caller, reportsVersion: number | undefined): Charged {
  return { principal, plan, reportsVersion };
}

export function withReads({ principal, plan, reportsVersion }: Charged, reads: ReadSource): Admitted {
  return { principal, plan, reportsVersion, reads };
}
