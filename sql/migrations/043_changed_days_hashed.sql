-- 043: an update's changed days made distinct by hashing. The planner cannot count a transition table's distinct
-- (account, day) pairs, so it would sort all of an update's rows to find a few hundred (BENCHMARKS.md, "Loading
-- facts"). Which days are found is what 034 finds.
alter function facts_after_write() set enable_sort = off;
