-- 038: a load's campaign days and converted months summed by hashing, in memory. A rebuild runs inside the load's
-- transaction, planned from the facts' statistics of before it (037 analyses them once it commits): PostgreSQL takes
-- the new facts for a row or two and would sort them on disk to sum them. Hashed, as rebuild_facts_monthly is (031),
-- with the memory fact_writes_after_write has (034). BENCHMARKS.md, "Loading facts".
alter function rebuild_facts_campaign_daily(uuid[], date[]) set enable_sort = off;
alter function rebuild_converted_rollups(uuid[], date[], text) set enable_sort = off;
alter function rebuild_rollups(uuid[], date[]) set work_mem = '64MB';
