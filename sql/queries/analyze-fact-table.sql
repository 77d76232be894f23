-- Refreshes the planner's statistics of $1, one of the facts' tables (analyze-facts).
select analyze_fact_table($1)
