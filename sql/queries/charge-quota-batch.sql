-- Charges, in order, client $3[i] of organization $1 the cost $4[i] in the window starting $2; one row per charge,
-- in the same order: outcome, budget, used after it.
select outcome, budget, used from charge_quota_batch($1, $2, $3, $4)
