-- Every organization for the operator: id, name, currency, plan, locked, hourly budget (the override or the plan's).
select o.id, o.name, o.currency, s.plan_code as plan, coalesce(s.locked, false) as locked,
       coalesce(s.budget_override, p.hourly_budget) as "budgetPerHour"
from organizations o
left join subscriptions s on s.organization_id = o.id
left join plans p on p.code = s.plan_code
order by o.name, o.id
