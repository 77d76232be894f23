-- The demo organization :org's subscription to plan :plan, made once.
insert into subscriptions (organization_id, plan_code) values (:org, :plan) on conflict (organization_id) do nothing
