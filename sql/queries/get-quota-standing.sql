-- Returns the budget of organization :org and what is used in the window starting :window.
-- not null: budget, used
select coalesce(s.budget_override, p.hourly_budget) as budget, coalesce(w.used, 0) as used
from subscriptions s
join plans p on p.code = s.plan_code
left join quota_windows w on w.organization_id = s.organization_id and w.window_start = :window
where s.organization_id = :org
