-- Charges $4 units to client $2 of organization $1 in the window starting $3; returns outcome, budget, used.
select outcome, budget, used from charge_quota($1, $2, $3, $4)
