-- Refunds $4 units to client $2 of organization $1 in the window starting $3; returns budget and used after.
-- not null: budget, used
select budget, used from refund_quota($1, $2, $3, $4)
