-- Returns organization :org's plan and subscription state.
-- not null: budget
select p.code, p.name, p.public_api, p.conversion_metrics, coalesce(s.budget_override, p.hourly_budget) as budget, s.locked
from subscriptions s
join plans p on p.code = s.plan_code
where s.organization_id = :org
