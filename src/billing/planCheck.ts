// The plan and lock steps of the pipeline (docs/decisions.md §3): billing unknown, a plan without API, a locked
// subscription.
import type { Plan, Principal } from '../http/caller.ts';
import type { Plans } from './plans.ts';
import { billingUnavailable, invalidToken, planFeatureRequired, subscriptionLocked } from '../http/problem.ts';
import { whenReady } from '../http/whenReady.ts';

/** Pipeline step: the caller's plan, which must include the public API; from memory while the cache is healthy. */
export function requirePlan(plans: Plans) {
  return function withPlan(principal: Principal): Plan | Promise<Plan> {
    return whenReady(plans.standing(principal.organizationId), ({ plan, gone }) => {
      // docs/decisions.md §9: a deleted organization's tokens are invalid, not a billing outage.
      if (gone) throw invalidToken();
      if (!plan) throw billingUnavailable();
      if (!plan.publicApi) throw planFeatureRequired(plan.name);
      return plan;
    });
  };
}

export function requireUnlocked(plan: Plan): void {
  if (plan.locked) throw subscriptionLocked();
}
