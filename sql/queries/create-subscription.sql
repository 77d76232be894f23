-- Gives organization :org its one subscription, on plan :plan.
insert into subscriptions (organization_id, plan_code) values (:org, :plan)
