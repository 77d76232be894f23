-- 040: a load's statistics at less cost. The base metrics are summed, never filtered, joined or grouped on, so the
-- planner never reads their statistics: they are not gathered (most of ANALYZE's work a table). And the tables are
-- analysed one statement each, so the command can run two at once on two connections, two cores
-- (src/store/factWrites.ts; BENCHMARKS.md, "Loading facts").

do $$
declare
  v_table text;
  v_metric text;
begin
  foreach v_table in array array['facts', 'facts_monthly', 'facts_campaign_daily', 'facts_campaign_monthly',
                                 'facts_account_daily', 'facts_monthly_converted', 'facts_campaign_daily_converted',
                                 'facts_campaign_monthly_converted', 'facts_account_daily_converted', 'facts_spans',
                                 'facts_campaign_spans'] loop
    foreach v_metric in array array['impressions', 'clicks', 'spend', 'conversions', 'conversion_value',
                                    'video_views', 'video_completions'] loop
      execute format('alter table %I alter column %I set statistics 0', v_table, v_metric);
    end loop;
  end loop;
end
$$;

-- The facts' tables to analyse after a write, largest first: those 037's analyze_facts chose (grown by a tenth of
-- their pages since last analysed, under a megabyte, or never analysed; every one when p_all, after a delete).
create function facts_tables_to_analyze(p_all boolean)
returns setof text
language sql stable as $$
  select c.relname::text
  from pg_class c
  where c.oid = any(array['facts', 'facts_monthly', 'facts_campaign_daily', 'facts_campaign_monthly',
                          'facts_account_daily', 'facts_monthly_converted', 'facts_campaign_daily_converted',
                          'facts_campaign_monthly_converted', 'facts_account_daily_converted', 'facts_spans',
                          'facts_campaign_spans', 'fact_writes', 'fact_account_writes']::regclass[])
    and (p_all or c.reltuples < 0 or c.relpages < 128
         or pg_relation_size(c.oid) > 1.1 * c.relpages * current_setting('block_size')::bigint)
  order by pg_relation_size(c.oid) desc, c.relname
$$;

-- Analyses one of the facts' tables, and only those.
create function analyze_fact_table(p_table text)
returns void
language plpgsql as $$
begin
  if p_table not in (select facts_tables_to_analyze(true)) then
    raise exception 'analyze_fact_table: % is not one of the facts'' tables', p_table;
  end if;
  execute format('analyze %I', p_table);
end
$$;

drop function analyze_facts(boolean);
