-- Refreshes the planner's statistics of :table, one of the facts' tables (analyze-facts).
select analyze_fact_table(:table)
