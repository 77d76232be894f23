-- Every insert into a table of sums names its columns: the rebuilds' inserts relied on the order of the table's
-- columns, so a column added in the wrong place would have cast one metric into another without a word. The
-- functions are as they were, but for the column lists.

CREATE OR REPLACE FUNCTION public.rebuild_converted_rollups(p_accounts uuid[], p_months date[], p_target text)
 RETURNS void
 LANGUAGE sql
 SET jit TO 'off'
 SET enable_sort TO 'off'
AS $function$
  delete from facts_monthly_converted m
  using unnest(p_accounts, p_months) as t(ad_account_id, month)
  where m.ad_account_id = t.ad_account_id and m.month = t.month and (p_target is null or m.currency = p_target);
  delete from facts_campaign_monthly_converted m
  using unnest(p_accounts, p_months) as t(ad_account_id, month)
  where m.ad_account_id = t.ad_account_id and m.month = t.month and (p_target is null or m.currency = p_target);
  delete from facts_campaign_daily_converted d
  using unnest(p_accounts, p_months) as t(ad_account_id, month)
  where d.ad_account_id = t.ad_account_id and d.day >= t.month and d.day < (t.month + interval '1 month')::date
    and (p_target is null or d.currency = p_target);
  with pairs as (
    select t.ad_account_id, t.month, a.currency as source, r.currency as target
    from unnest(p_accounts, p_months) as t(ad_account_id, month)
    join ad_accounts a on a.id = t.ad_account_id
    join converted_currencies r on r.organization_id = a.organization_id and r.currency <> a.currency
    where p_target is null or r.currency = p_target
  ), factors as materialized (
    select p.source, p.target, p.month, d::date as day, fx_factor(p.source, p.target, d::date) as factor
    from (select distinct source, target, month from pairs) p
    cross join lateral generate_series(p.month, p.month + interval '1 month' - interval '1 day', interval '1 day') d
  ), creatives as (
    insert into facts_monthly_converted (currency, organization_id, ad_account_id, campaign_id, creative_id, month,
      impressions, clicks, spend, conversions, conversion_value, video_views, video_completions)
    select p.target, s.organization_id, p.ad_account_id, s.campaign_id, s.creative_id, p.month,
           sum(s.impressions), sum(s.clicks),
           case when count(*) = count(s.spend) then sum(s.spend) end, sum(s.conversions),
           case when count(*) = count(s.conversion_value) then sum(s.conversion_value) end,
           sum(s.video_views), sum(s.video_completions)
    from pairs p
    cross join lateral month_pieces(p.ad_account_id, p.month, p.source, p.target) s
    group by p.target, s.organization_id, p.ad_account_id, s.campaign_id, s.creative_id, p.month
    returning *
  ), days as (
    insert into facts_campaign_daily_converted (currency, organization_id, ad_account_id, campaign_id, day,
      impressions, clicks, spend, conversions, conversion_value, video_views, video_completions)
    select p.target, d.organization_id, d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks,
           d.spend * x.factor, d.conversions, d.conversion_value * x.factor, d.video_views, d.video_completions
    from pairs p
    join factors x on x.source = p.source and x.target = p.target and x.month = p.month
    cross join lateral (
      select * from facts_campaign_daily d where d.ad_account_id = p.ad_account_id and d.day = x.day offset 0
    ) d
  )
  insert into facts_campaign_monthly_converted (currency, organization_id, ad_account_id, campaign_id, month,
    impressions, clicks, spend, conversions, conversion_value, video_views, video_completions)
  select c.currency, c.organization_id, c.ad_account_id, c.campaign_id, c.month,
         sum(c.impressions), sum(c.clicks), case when count(*) = count(c.spend) then sum(c.spend) end, sum(c.conversions),
         case when count(*) = count(c.conversion_value) then sum(c.conversion_value) end,
         sum(c.video_views), sum(c.video_completions)
  from creatives c
  group by c.currency, c.organization_id, c.ad_account_id, c.campaign_id, c.month;
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_facts_account_daily(p_accounts uuid[], p_days date[])
 RETURNS void
 LANGUAGE sql
AS $function$
  delete from facts_account_daily d
  using unnest(p_accounts, p_days) as t(ad_account_id, day)
  where d.ad_account_id = t.ad_account_id and d.day = t.day;
  insert into facts_account_daily (organization_id, ad_account_id, day, impressions, clicks, spend, conversions,
    conversion_value, video_views, video_completions)
  select c.organization_id, c.ad_account_id, c.day, sum(c.impressions), sum(c.clicks), sum(c.spend), sum(c.conversions),
         sum(c.conversion_value), sum(c.video_views), sum(c.video_completions)
  from (select distinct * from unnest(p_accounts, p_days) as t(ad_account_id, day)) t
  join facts_campaign_daily c on c.ad_account_id = t.ad_account_id and c.day = t.day
  group by c.organization_id, c.ad_account_id, c.day;
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_facts_account_daily_converted(p_currencies text[], p_accounts uuid[], p_days date[])
 RETURNS void
 LANGUAGE sql
AS $function$
  delete from facts_account_daily_converted d
  using unnest(p_currencies, p_accounts, p_days) as t(currency, ad_account_id, day)
  where d.currency = t.currency and d.ad_account_id = t.ad_account_id and d.day = t.day;
  insert into facts_account_daily_converted (currency, organization_id, ad_account_id, day, impressions, clicks,
    spend, conversions, conversion_value, video_views, video_completions)
  select c.currency, c.organization_id, c.ad_account_id, c.day, sum(c.impressions), sum(c.clicks),
         case when count(*) = count(c.spend) then sum(c.spend) end, sum(c.conversions),
         case when count(*) = count(c.conversion_value) then sum(c.conversion_value) end,
         sum(c.video_views), sum(c.video_completions)
  from (select distinct * from unnest(p_currencies, p_accounts, p_days) as t(currency, ad_account_id, day)) t
  join facts_campaign_daily_converted c on c.currency = t.currency and c.ad_account_id = t.ad_account_id and c.day = t.day
  group by c.currency, c.organization_id, c.ad_account_id, c.day;
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_facts_campaign_daily(p_accounts uuid[], p_days date[])
 RETURNS void
 LANGUAGE sql
 SET enable_sort TO 'off'
AS $function$
  delete from facts_campaign_daily d
  using unnest(p_accounts, p_days) as t(ad_account_id, day)
  where d.ad_account_id = t.ad_account_id and d.day = t.day;
  insert into facts_campaign_daily (organization_id, ad_account_id, campaign_id, day, impressions, clicks, spend,
    conversions, conversion_value, video_views, video_completions)
  select f.organization_id, f.ad_account_id, f.campaign_id, f.day,
         sum(f.impressions), sum(f.clicks), sum(f.spend), sum(f.conversions), sum(f.conversion_value),
         sum(f.video_views), sum(f.video_completions)
  from unnest(p_accounts, p_days) as t(ad_account_id, day)
  join facts f on f.ad_account_id = t.ad_account_id and f.day = t.day
  group by f.organization_id, f.ad_account_id, f.campaign_id, f.day;
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_facts_campaign_monthly(p_accounts uuid[], p_months date[])
 RETURNS void
 LANGUAGE sql
AS $function$
  delete from facts_campaign_monthly m
  using unnest(p_accounts, p_months) as t(ad_account_id, month)
  where m.ad_account_id = t.ad_account_id and m.month = t.month;
  insert into facts_campaign_monthly (organization_id, ad_account_id, campaign_id, month, impressions, clicks, spend,
    conversions, conversion_value, video_views, video_completions)
  select m.organization_id, m.ad_account_id, m.campaign_id, m.month,
         sum(m.impressions), sum(m.clicks), sum(m.spend), sum(m.conversions), sum(m.conversion_value),
         sum(m.video_views), sum(m.video_completions)
  from unnest(p_accounts, p_months) as t(ad_account_id, month)
  join facts_monthly m on m.ad_account_id = t.ad_account_id and m.month = t.month
  group by m.organization_id, m.ad_account_id, m.campaign_id, m.month;
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_facts_monthly(p_accounts uuid[], p_months date[])
 RETURNS void
 LANGUAGE sql
 SET enable_sort TO 'off'
AS $function$
  delete from facts_monthly m
  using unnest(p_accounts, p_months) as t(ad_account_id, month)
  where m.ad_account_id = t.ad_account_id and m.month = t.month;
  insert into facts_monthly (organization_id, ad_account_id, campaign_id, creative_id, month, impressions, clicks,
    spend, conversions, conversion_value, video_views, video_completions)
  select s.organization_id, t.ad_account_id, s.campaign_id, s.creative_id, t.month,
         sum(s.impressions), sum(s.clicks), sum(s.spend), sum(s.conversions), sum(s.conversion_value),
         sum(s.video_views), sum(s.video_completions)
  from unnest(p_accounts, p_months) as t(ad_account_id, month)
  join ad_accounts a on a.id = t.ad_account_id
  cross join lateral month_pieces(t.ad_account_id, t.month, a.currency, a.currency) s
  group by s.organization_id, t.ad_account_id, s.campaign_id, s.creative_id, t.month;
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_spans(p_accounts uuid[], p_days date[], p_target text, p_native boolean)
 RETURNS void
 LANGUAGE plpgsql
 SET jit TO 'off'
 SET plan_cache_mode TO 'force_custom_plan'
AS $function$
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
      insert into facts_spans (ad_account_id, level, start, currency, creative_ids, campaign_ids, impressions, clicks,
        spend, conversions, conversion_value, video_views, video_completions)
      select t.ad_account_id, 2, t.start, s.target, array_agg(s.creative_id), array_agg(s.campaign_id),
             array_agg(s.impressions), array_agg(s.clicks), array_agg(s.spend), array_agg(s.conversions),
             array_agg(s.conversion_value), array_agg(s.video_views), array_agg(s.video_completions)
      from t
      cross join lateral (
        select t.targets[k] as target, f.creative_id, f.campaign_id,
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
        group by k, f.creative_id, f.campaign_id
      ) s
      group by t.ad_account_id, t.start, s.target;
    else
      -- A span with one span below it holding facts holds what that one holds: its arrays are copied, not summed
      -- again (a day of new creatives; the later half of a span, not yet reached).
      insert into facts_spans (ad_account_id, level, start, currency, creative_ids, campaign_ids, impressions, clicks,
        spend, conversions, conversion_value, video_views, video_completions)
      select t.ad_account_id, v_level, t.start, t.target, b.creative_ids, b.campaign_ids, b.impressions, b.clicks,
             b.spend, b.conversions, b.conversion_value, b.video_views, b.video_completions
      from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
      join facts_spans b on b.ad_account_id = t.ad_account_id and b.level = v_below and b.currency = t.target
        and b.start between t.start and t.start + (1 << v_level) - 1
      where span_children(t.ad_account_id, v_below, t.start, t.start + (1 << v_level) - 1, t.target) = 1;
      insert into facts_spans (ad_account_id, level, start, currency, creative_ids, campaign_ids, impressions, clicks,
        spend, conversions, conversion_value, video_views, video_completions)
      select t.ad_account_id, v_level, t.start, t.target, s.*
      from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
      cross join lateral (
        select array_agg(c.creative_id), array_agg(c.campaign_id), array_agg(c.impressions), array_agg(c.clicks),
               array_agg(c.spend), array_agg(c.conversions), array_agg(c.conversion_value), array_agg(c.video_views),
               array_agg(c.video_completions)
        from (
          select c.creative_id, c.campaign_id, sum(c.impressions) as impressions, sum(c.clicks) as clicks,
                 case when count(*) = count(c.spend) then sum(c.spend) end as spend,
                 sum(c.conversions) as conversions,
                 case when count(*) = count(c.conversion_value) then sum(c.conversion_value) end as conversion_value,
                 sum(c.video_views) as video_views, sum(c.video_completions) as video_completions
          from span_creatives(array[t.ad_account_id], v_below, t.start, t.start + (1 << v_level) - 1, t.target) c
          group by c.creative_id, c.campaign_id
        ) c
        having count(*) > 0
      ) s
      where span_children(t.ad_account_id, v_below, t.start, t.start + (1 << v_level) - 1, t.target) > 1;
    end if;
    if v_level = 2 then
      insert into facts_campaign_spans (ad_account_id, level, start, currency, campaign_id, organization_id,
        impressions, clicks, spend, conversions, conversion_value, video_views, video_completions)
      select t.ad_account_id, v_level, t.start, t.target, s.campaign_id, a.organization_id,
             s.impressions, s.clicks, s.spend, s.conversions, s.conversion_value, s.video_views, s.video_completions
      from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
      join ad_accounts a on a.id = t.ad_account_id
      cross join lateral (
        select c.campaign_id, sum(c.impressions) as impressions, sum(c.clicks) as clicks,
               case when count(*) = count(c.spend) then sum(c.spend) end as spend, sum(c.conversions) as conversions,
               case when count(*) = count(c.conversion_value) then sum(c.conversion_value) end as conversion_value,
               sum(c.video_views) as video_views, sum(c.video_completions) as video_completions
        from span_creatives(array[t.ad_account_id], 2, t.start, t.start, t.target) c
        group by c.campaign_id
      ) s;
    else
      insert into facts_campaign_spans (ad_account_id, level, start, currency, campaign_id, organization_id,
        impressions, clicks, spend, conversions, conversion_value, video_views, video_completions)
      select t.ad_account_id, v_level, t.start, t.target, s.campaign_id, s.organization_id,
             s.impressions, s.clicks, s.spend, s.conversions, s.conversion_value, s.video_views, s.video_completions
      from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
      cross join lateral (
        select s.campaign_id, s.organization_id, sum(s.impressions) as impressions, sum(s.clicks) as clicks,
               case when count(*) = count(s.spend) then sum(s.spend) end as spend, sum(s.conversions) as conversions,
               case when count(*) = count(s.conversion_value) then sum(s.conversion_value) end as conversion_value,
               sum(s.video_views) as video_views, sum(s.video_completions) as video_completions
        from facts_campaign_spans s
        where s.ad_account_id = t.ad_account_id and s.level = v_below and s.currency = t.target
          and s.start >= t.start and s.start < t.start + (1 << v_level)
        group by s.campaign_id, s.organization_id
      ) s;
    end if;
    v_below := v_level;
  end loop;
end
$function$;
