-- 037: a load analyses only the facts' tables it grew by a tenth or more: analysing all thirteen after every load
-- would sample every large table whatever the load, on a large database for longer than a day's import itself
-- (BENCHMARKS.md, "Loading facts").

-- Analyses the facts' tables grown by a tenth of their pages or more since they were last analysed (or vacuumed), those
-- under a megabyte (sampled whole, cheaply; their rows can multiply inside a page) and those never analysed; every one
-- when p_all (a delete frees rows without shrinking a table). A larger table grown by less keeps
-- its statistics: the planner scales its row count by its size, and it grows on until a later load or autovacuum
-- analyses it (docs/operations.md, "Operations"). Sizes, not pg_stat_user_tables' counts: the embedded database
-- reports those only now and then.
create or replace function analyze_facts(p_all boolean)
returns void
language plpgsql as $$
declare
  v_table regclass;
begin
  for v_table in
    select c.oid::regclass
    from pg_class c
    where c.oid = any(array['facts', 'facts_monthly', 'facts_campaign_daily', 'facts_campaign_monthly',
                            'facts_account_daily', 'facts_monthly_converted', 'facts_campaign_daily_converted',
                            'facts_campaign_monthly_converted', 'facts_account_daily_converted', 'facts_spans',
                            'facts_campaign_spans', 'fact_writes', 'fact_account_writes']::regclass[])
      and (p_all or c.reltuples < 0 or c.relpages < 128
           or pg_relation_size(c.oid) > 1.1 * c.relpages * current_setting('block_size')::bigint)
    order by c.relname
  loop
    execute format('analyze %s', v_table);
  end loop;
end
$$;
