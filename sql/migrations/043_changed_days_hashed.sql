-- 043: an update's changed days made distinct by hashing. The planner cannot count a transition table's distinct
-- (account, day) pairs, so it sorted all of an update's rows to find a few hundred: 0.5 s of a 560,000-row
-- restatement (BENCHMARKS.md, "Loading facts"). Which days are found is unchanged.
alter function facts_after_write() set enable_sort = off;
