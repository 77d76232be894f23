-- The demo organization $1's subscription to plan $2, made once.
insert into subscriptions (organization_id, plan_code) values ($1, $2) on conflict (organization_id) do nothing
