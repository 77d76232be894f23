-- 031: a month's creative rollup rebuilt by hashing its groups (BENCHMARKS.md, "Loading facts").
--
-- PostgreSQL plans the function's statements for any accounts and months, guesses one fact for each, and so would sort
-- the facts to group them: after a load, hundreds of thousands of rows sorted on disk. A hash of the creatives spills
-- only past hash_mem.
alter function rebuild_facts_monthly(uuid[], date[]) set enable_sort = off;
