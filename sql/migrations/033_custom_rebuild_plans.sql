-- 033: the rollup rebuilds plan each statement for the rows in front of it. PL/pgSQL keeps a statement's plan for its
-- session once it has run it five times, and a span rebuild runs its statements once a level, seven times a call: a
-- session that first rebuilt a few facts would keep plans made for a few, and load many with them. The embedded
-- database has one session for everything (BENCHMARKS.md, "Loading facts").
alter function rebuild_spans(uuid[], date[], text, boolean) set plan_cache_mode = force_custom_plan;
alter function rebuild_rollups(uuid[], date[]) set plan_cache_mode = force_custom_plan;
alter function rebuild_deferred_rollups() set plan_cache_mode = force_custom_plan;
