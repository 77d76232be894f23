// The plan and lock steps of the pipeline (docs/decisions.md §3): billing unknown, a plan without API, a locked
// subscription.
import type { Context } from '../http/context.ts';
import type { Plans } from './plans.ts';
import { billingUnavailable, planFeatureRequired, subscriptionLocked } from '../http/problem.ts';
import { whenReady } from '../http/whenReady.ts';

export function requirePlan(plans: Plans) {
  return function withPlan(ctx: Context): void | Promise<void> {
    return whenReady(plans.standing(ctx.principal!.organizationId), ({ plan }) => {
      if (!plan) throw billingUnavailable();
      if (!plan.publicApi) throw planFeatureRequired(plan.name);
      ctx.plan = plan;
    });
  };
}

export function requireUnlocked(ctx: Context): void {
  if (ctx.plan!.locked) throw subscriptionLocked();
}
