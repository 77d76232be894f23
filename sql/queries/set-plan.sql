-- Moves organization :org to plan :plan, with budget override :budget (null: the plan's); returns the new standing.
with updated as (
  update subscriptions set plan_code = :plan, budget_override = :budget, updated_at = now()
  where organization_id = :org
  returning organization_id, plan_code, budget_override
)
select u.organization_id, u.plan_code, coalesce(u.budget_override, p.hourly_budget) as budget
from updated u join plans p on p.code = u.plan_code
