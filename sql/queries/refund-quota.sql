-- Refunds :units to client :client of organization :org in the window starting :window; returns budget and used after.
-- not null: budget, used
select budget, used from refund_quota(:org, :client, :window, :units)
