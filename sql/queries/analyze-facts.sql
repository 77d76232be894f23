-- Refreshes the planner's statistics of the facts' tables a load grew by a tenth or more, every one with $1 (a
-- delete), once it has committed: the first report read after a large load is planned from what is there, not from
-- an empty table's guess.
select analyze_facts($1)
