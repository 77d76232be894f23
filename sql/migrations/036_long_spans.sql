-- 036: spans of 1,024 days. Migration 032 reads a report's whole history as the spans of 256 days around it: three a
-- creative for 400 days of facts, summed per creative on every read. One span of 1,024 days holds a history of up to
-- about three years that falls inside it, one row a creative (BENCHMARKS.md, "Spans"). It costs one more row a
-- creative and currency for each span a write touches (the level-8 spans under it, summed); there is no level of 512
-- days, which would cost another for fewer reads, and a range that cannot be widened to 1,024 days reads as 032 reads.

-- The spans a range is made of, longest first where they fit: levels 2 to 8 and 10 (level 0 is a single day, read
-- from the facts; no spans of 2 days are kept, they would hold half the rows to save a row now and then).
create or replace function span_pieces(p_from date, p_to date)
returns table(level integer, start date)
language plpgsql immutable parallel safe as $$
declare
  v_at date := p_from;
  v_level integer;
begin
  while v_at <= p_to loop
    v_level := 10;
    while v_level > 0
      and (v_level in (1, 9) or span_start(v_level, v_at) <> v_at or v_at + (1 << v_level) - 1 > p_to) loop
      v_level := v_level - 1;
    end loop;
    level := v_level;
    start := v_at;
    return next;
    v_at := v_at + (1 << v_level);
  end loop;
end
$$;

-- 029's rebuild, each level from the one below it: 1,024 days from the spans of 256.
create or replace function rebuild_spans(p_accounts uuid[], p_days date[], p_target text, p_native boolean)
returns void
language plpgsql as $$
declare
  v_level integer;
  v_below integer := 0;
  v_accounts uuid[];
  v_starts date[];
  v_sources text[];
  v_targets text[];
begin
  foreach v_level in array array[2, 3, 4, 5, 6, 7, 8, 10] loop
    -- The spans of this length over the days, in each currency kept: (account, start, its currency, the target).
    select array_agg(b.ad_account_id), array_agg(b.start), array_agg(a.currency), array_agg(c.currency)
    into v_accounts, v_starts, v_sources, v_targets
    from (select distinct t.ad_account_id, span_start(v_level, t.day) as start
          from unnest(p_accounts, p_days) as t(ad_account_id, day)) b
    join ad_accounts a on a.id = b.ad_account_id
    cross join lateral (
      select a.currency where p_native
      union
      select r.currency from converted_currencies r where r.organization_id = a.organization_id and r.currency <> a.currency
    ) c(currency)
    where p_target is null or c.currency = p_target;
    exit when v_accounts is null;
    delete from facts_spans s using unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
    where s.ad_account_id = t.ad_account_id and s.level = v_level and s.start = t.start and s.currency = t.target;
    delete from facts_campaign_spans s using unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
    where s.ad_account_id = t.ad_account_id and s.level = v_level and s.start = t.start and s.currency = t.target;
    if v_level = 2 then
      -- An account's span once, with its currencies (targets) and each one's four days' rates (factors[k][day]).
      with t as materialized (
        select t.ad_account_id, t.start, array_agg(t.target) as targets,
               array_agg(array(
                 select case when t.source = t.target then 1::float8 else fx_factor(t.source, t.target, t.start + d) end
                 from generate_series(0, 3) d order by d)) as factors
        from unnest(v_accounts, v_starts, v_sources, v_targets) as t(ad_account_id, start, source, target)
        group by t.ad_account_id, t.start
      )
      insert into facts_spans
      select t.ad_account_id, 2, t.start, s.target, s.creative_id, s.campaign_id, s.organization_id, s.impressions,
             s.clicks, s.spend, s.conversions, s.conversion_value, s.video_views, s.video_completions
      from t
      cross join lateral (
        select t.targets[k] as target, f.creative_id, f.campaign_id, f.organization_id,
               sum(f.impressions) as impressions, sum(f.clicks) as clicks,
               case when count(*) = count(t.factors[k][f.day - t.start + 1])
                 then sum(f.spend * t.factors[k][f.day - t.start + 1]) end as spend,
               sum(f.conversions) as conversions,
               case when count(*) = count(t.factors[k][f.day - t.start + 1])
                 then sum(f.conversion_value * t.factors[k][f.day - t.start + 1]) end as conversion_value,
               sum(f.video_views) as video_views, sum(f.video_completions) as video_completions
        from facts f
        cross join generate_subscripts(t.targets, 1) k
        where f.ad_account_id = t.ad_account_id and f.day >= t.start and f.day < t.start + 4
        group by k, f.creative_id, f.campaign_id, f.organization_id
      ) s;
    else
      insert into facts_spans
      select t.ad_account_id, v_level, t.start, t.target, s.creative_id, s.campaign_id, s.organization_id,
             s.impressions, s.clicks, s.spend, s.conversions, s.conversion_value, s.video_views, s.video_completions
      from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
      cross join lateral (
        select s.creative_id, s.campaign_id, s.organization_id,
               sum(s.impressions) as impressions, sum(s.clicks) as clicks,
               case when count(*) = count(s.spend) then sum(s.spend) end as spend, sum(s.conversions) as conversions,
               case when count(*) = count(s.conversion_value) then sum(s.conversion_value) end as conversion_value,
               sum(s.video_views) as video_views, sum(s.video_completions) as video_completions
        from facts_spans s
        where s.ad_account_id = t.ad_account_id and s.level = v_below and s.currency = t.target
          and s.start >= t.start and s.start < t.start + (1 << v_level)
        group by s.creative_id, s.campaign_id, s.organization_id
      ) s;
    end if;
    insert into facts_campaign_spans
    select t.ad_account_id, v_level, t.start, t.target, s.campaign_id, s.organization_id,
           s.impressions, s.clicks, s.spend, s.conversions, s.conversion_value, s.video_views, s.video_completions
    from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
    cross join lateral (
      select s.campaign_id, s.organization_id, sum(s.impressions) as impressions, sum(s.clicks) as clicks,
             case when count(*) = count(s.spend) then sum(s.spend) end as spend, sum(s.conversions) as conversions,
             case when count(*) = count(s.conversion_value) then sum(s.conversion_value) end as conversion_value,
             sum(s.video_views) as video_views, sum(s.video_completions) as video_completions
      from facts_spans s
      where s.ad_account_id = t.ad_account_id and s.level = v_level and s.start = t.start and s.currency = t.target
      group by s.campaign_id, s.organization_id
    ) s;
    v_below := v_level;
  end loop;
end
$$;

-- As 029 and 033 set them: a rebuild's statements planned for the rows in front of them, without JIT.
alter function rebuild_spans(uuid[], date[], text, boolean) set jit = off;
alter function rebuild_spans(uuid[], date[], text, boolean) set plan_cache_mode = force_custom_plan;

-- 032's widening, out to the edges of spans of 1,024 days.
create or replace function report_span_pieces(p_accounts uuid[], p_from date, p_to date)
returns table(level integer, start date)
language plpgsql stable as $$
declare
  v_before date;
  v_after date;
  v_wide_from date := p_from;
  v_wide_to date := p_to;
  v_from date := p_from;
  v_to date := p_to;
  v_level integer;
  v_fewest bigint;
  v_count bigint;
  v_pair record;
begin
  -- An account's nearest day each side, one index probe an account: a report of many accounts with facts on every
  -- day around the range would otherwise read them all.
  select max(d.day) into v_before from unnest(p_accounts) a(id)
  cross join lateral (
    select d.day from facts_account_daily d
    where d.ad_account_id = a.id and d.day >= span_start(10, p_from) and d.day < p_from
    order by d.day desc limit 1
  ) d;
  select min(d.day) into v_after from unnest(p_accounts) a(id)
  cross join lateral (
    select d.day from facts_account_daily d
    where d.ad_account_id = a.id and d.day > p_to and d.day < span_start(10, p_to) + 1024
    order by d.day limit 1
  ) d;
  for v_level in reverse 10..1 loop
    if span_start(v_level, p_from) > coalesce(v_before, '-infinity') then
      v_wide_from := span_start(v_level, p_from);
      exit;
    end if;
  end loop;
  for v_level in reverse 10..1 loop
    if span_start(v_level, p_to) + (1 << v_level) - 1 < coalesce(v_after, 'infinity') then
      v_wide_to := span_start(v_level, p_to) + (1 << v_level) - 1;
      exit;
    end if;
  end loop;
  select count(*) into v_fewest from span_pieces(p_from, p_to);
  for v_pair in select c.f, c.t from (values (v_wide_from, p_to), (p_from, v_wide_to), (v_wide_from, v_wide_to)) c(f, t)
  loop
    select count(*) into v_count from span_pieces(v_pair.f, v_pair.t);
    if v_count < v_fewest then
      v_fewest := v_count;
      v_from := v_pair.f;
      v_to := v_pair.t;
    end if;
  end loop;
  return query select p.level, p.start from span_pieces(v_from, v_to) p;
end
$$;

-- The spans of 1,024 days of the facts already loaded, from their spans of 256 (money null where any part's is).
insert into facts_spans
select s.ad_account_id, 10, span_start(10, s.start), s.currency, s.creative_id, s.campaign_id, s.organization_id,
       sum(s.impressions), sum(s.clicks), case when count(*) = count(s.spend) then sum(s.spend) end,
       sum(s.conversions), case when count(*) = count(s.conversion_value) then sum(s.conversion_value) end,
       sum(s.video_views), sum(s.video_completions)
from facts_spans s
where s.level = 8
group by s.ad_account_id, span_start(10, s.start), s.currency, s.creative_id, s.campaign_id, s.organization_id;

insert into facts_campaign_spans
select s.ad_account_id, 10, span_start(10, s.start), s.currency, s.campaign_id, s.organization_id,
       sum(s.impressions), sum(s.clicks), case when count(*) = count(s.spend) then sum(s.spend) end,
       sum(s.conversions), case when count(*) = count(s.conversion_value) then sum(s.conversion_value) end,
       sum(s.video_views), sum(s.video_completions)
from facts_campaign_spans s
where s.level = 8
group by s.ad_account_id, span_start(10, s.start), s.currency, s.campaign_id, s.organization_id;

analyze facts_spans, facts_campaign_spans;
