-- Gives organization $1 its one subscription, on plan $2.
insert into subscriptions (organization_id, plan_code) values ($1, $2)
