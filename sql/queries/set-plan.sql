-- Moves organization $1 to plan $2, with budget override $3 (null: the plan's); returns the new standing.
with updated as (
  update subscriptions set plan_code = $2, budget_override = $3, updated_at = now()
  where organization_id = $1
  returning organization_id, plan_code, budget_override
)
select u.organization_id, u.plan_code, coalesce(u.budget_override, p.hourly_budget) as budget
from updated u join plans p on p.code = u.plan_code
