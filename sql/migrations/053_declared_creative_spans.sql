-- The declared base metrics' sums by creative over the spans migration 052 keeps them over by campaign: a creative
-- answer over a long range reads a few spans of each creative and its edge days, not every fact of its edge days
-- (BENCHMARKS.md, "Declared base metrics"). The shortest spans are summed from the facts that hold declared numbers,
-- each level above from the one below. A creative's campaign is kept beside it, for segment reports and the answer's
-- campaign filter.
create table declared_creative_spans (
  ad_account_id uuid not null references ad_accounts (id) on delete cascade,
  level smallint not null,
  start date not null,
  creative_id uuid not null,
  campaign_id uuid not null,
  d1 double precision not null,
  d2 double precision not null,
  d3 double precision not null,
  d4 double precision not null,
  d5 double precision not null,
  d6 double precision not null,
  d7 double precision not null,
  d8 double precision not null,
  primary key (ad_account_id, level, start, creative_id)
);

create function rebuild_declared_creative_spans(p_accounts uuid[], p_days date[]) returns void language plpgsql as $$
declare
  v_level integer;
  v_below integer := 0;
begin
  foreach v_level in array array[2, 3, 4, 5, 6, 7, 8, 10] loop
    delete from declared_creative_spans s
    using (select distinct t.a, span_start(v_level, t.day) as start from unnest(p_accounts, p_days) t(a, day)) t
    where s.ad_account_id = t.a and s.level = v_level and s.start = t.start;
    with spans as (
      select distinct t.a, span_start(v_level, t.day) as start from unnest(p_accounts, p_days) t(a, day)
    )
    insert into declared_creative_spans (ad_account_id, level, start, creative_id, campaign_id,
                                         d1, d2, d3, d4, d5, d6, d7, d8)
    select t.a, v_level, t.start, c.creative_id, c.campaign_id,
           sum(c.d1), sum(c.d2), sum(c.d3), sum(c.d4), sum(c.d5), sum(c.d6), sum(c.d7), sum(c.d8)
    from spans t
    cross join lateral (
      select f.creative_id, f.campaign_id,
             coalesce(f.declared[1], 0) as d1, coalesce(f.declared[2], 0) as d2, coalesce(f.declared[3], 0) as d3,
             coalesce(f.declared[4], 0) as d4, coalesce(f.declared[5], 0) as d5, coalesce(f.declared[6], 0) as d6,
             coalesce(f.declared[7], 0) as d7, coalesce(f.declared[8], 0) as d8
      from facts f
      where v_below = 0 and f.ad_account_id = t.a and f.day >= t.start and f.day < t.start + (1 << v_level)
        and f.declared is not null
      union all
      select s.creative_id, s.campaign_id, s.d1, s.d2, s.d3, s.d4, s.d5, s.d6, s.d7, s.d8
      from declared_creative_spans s
      where v_below > 0 and s.ad_account_id = t.a and s.level = v_below
        and s.start >= t.start and s.start < t.start + (1 << v_level)
    ) c
    group by t.a, t.start, c.creative_id, c.campaign_id;
    v_below := v_level;
  end loop;
end
$$;

-- Migration 052's rebuild keeps the campaigns' spans under its own name; the trigger's call rebuilds both.
alter function rebuild_declared_spans(uuid[], date[]) rename to rebuild_declared_campaign_spans;

-- Each of their statements runs once a level, eight times a call: planned for the rows in front of it, as migration
-- 033 has the built-in rebuilds, not by a plan kept from a call that wrote a few.
alter function rebuild_declared_campaign_spans(uuid[], date[]) set plan_cache_mode = force_custom_plan;
alter function rebuild_declared_creative_spans(uuid[], date[]) set plan_cache_mode = force_custom_plan;

create function rebuild_declared_spans(p_accounts uuid[], p_days date[]) returns void language plpgsql as $$
begin
  perform rebuild_declared_campaign_spans(p_accounts, p_days);
  perform rebuild_declared_creative_spans(p_accounts, p_days);
end
$$;

-- Analysed after a load that grew it, as the other sums are (migration 051).
create or replace function facts_tables_to_analyze(p_all boolean) returns setof text language sql stable as $$
  select c.relname::text
  from pg_class c
  where c.oid = any(array['facts', 'facts_monthly', 'facts_campaign_daily', 'facts_campaign_monthly',
                          'facts_account_daily', 'facts_monthly_converted', 'facts_campaign_daily_converted',
                          'facts_campaign_monthly_converted', 'facts_account_daily_converted', 'facts_spans',
                          'facts_campaign_spans', 'fact_writes', 'fact_account_writes', 'declared_campaign_daily',
                          'declared_campaign_monthly', 'declared_account_daily', 'declared_account_monthly',
                          'declared_creative_monthly', 'declared_campaign_spans', 'declared_creative_spans']::regclass[])
    and (p_all or c.reltuples < 0 or c.relpages < 128
         or pg_relation_size(c.oid) > 1.1 * c.relpages * current_setting('block_size')::bigint)
  order by pg_relation_size(c.oid) desc, c.relname
$$;

-- The facts that already hold declared numbers, in spans.
select rebuild_declared_creative_spans(array_agg(a), array_agg(d))
from (select distinct ad_account_id as a, day as d from facts where declared is not null) t
having count(*) > 0;

analyze declared_creative_spans;
