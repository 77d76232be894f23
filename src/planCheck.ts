// The plan and lock steps of the pipeline (spec §3, §7): billing unknown, a plan without API, a locked subscription.
import type { Context } from './context.ts';
import type { Plans } from './plans.ts';
import { ApiError } from './problem.ts';
import { planFeatureRequired, subscriptionLocked } from './quota.ts';

export function requirePlan(plans: Plans) {
  return async function withPlan(ctx: Context): Promise<void> {
    const { plan } = await plans.standing(ctx.principal!.organizationId);
    if (!plan) {
      throw new ApiError('billing-unavailable', 'The plan could not be established, not even from a recent snapshot.', {
        retryAfterSeconds: 60,
      });
    }
    if (!plan.publicApi) throw planFeatureRequired(plan.name);
    ctx.plan = plan;
  };
}

export function requireUnlocked(ctx: Context): void {
  if (ctx.plan!.locked) throw subscriptionLocked();
}
