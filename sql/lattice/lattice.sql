-- Written by `npm run sql:lattice` from sql/lattice/template.sql, src/dataModel.ts and src/report/numberRules.ts:
-- edit those.
-- Applied by `migrate` after the numbered migrations whenever it changes; every statement may run again.

-- A function may name another this file creates after it.
set local check_function_bodies = off;

alter table facts add column if not exists impressions bigint default 0 not null;
alter table facts alter column impressions set statistics 0;
alter table facts add column if not exists clicks bigint default 0 not null;
alter table facts alter column clicks set statistics 0;
alter table facts add column if not exists spend double precision default 0 not null;
alter table facts alter column spend set statistics 0;
alter table facts add column if not exists conversions double precision default 0 not null;
alter table facts alter column conversions set statistics 0;
alter table facts add column if not exists conversion_value double precision default 0 not null;
alter table facts alter column conversion_value set statistics 0;
alter table facts add column if not exists video_views bigint default 0 not null;
alter table facts alter column video_views set statistics 0;
alter table facts add column if not exists video_completions bigint default 0 not null;
alter table facts alter column video_completions set statistics 0;
alter table facts_account_daily add column if not exists impressions bigint default 0 not null;
alter table facts_account_daily alter column impressions set statistics 0;
alter table facts_account_daily add column if not exists clicks bigint default 0 not null;
alter table facts_account_daily alter column clicks set statistics 0;
alter table facts_account_daily add column if not exists spend double precision default 0 not null;
alter table facts_account_daily alter column spend set statistics 0;
alter table facts_account_daily add column if not exists conversions double precision default 0 not null;
alter table facts_account_daily alter column conversions set statistics 0;
alter table facts_account_daily add column if not exists conversion_value double precision default 0 not null;
alter table facts_account_daily alter column conversion_value set statistics 0;
alter table facts_account_daily add column if not exists video_views bigint default 0 not null;
alter table facts_account_daily alter column video_views set statistics 0;
alter table facts_account_daily add column if not exists video_completions bigint default 0 not null;
alter table facts_account_daily alter column video_completions set statistics 0;
alter table facts_account_daily_converted add column if not exists impressions bigint default 0 not null;
alter table facts_account_daily_converted alter column impressions set statistics 0;
alter table facts_account_daily_converted add column if not exists clicks bigint default 0 not null;
alter table facts_account_daily_converted alter column clicks set statistics 0;
alter table facts_account_daily_converted add column if not exists spend double precision default 0;
alter table facts_account_daily_converted alter column spend set statistics 0;
alter table facts_account_daily_converted add column if not exists conversions double precision default 0 not null;
alter table facts_account_daily_converted alter column conversions set statistics 0;
alter table facts_account_daily_converted add column if not exists conversion_value double precision default 0;
alter table facts_account_daily_converted alter column conversion_value set statistics 0;
alter table facts_account_daily_converted add column if not exists video_views bigint default 0 not null;
alter table facts_account_daily_converted alter column video_views set statistics 0;
alter table facts_account_daily_converted add column if not exists video_completions bigint default 0 not null;
alter table facts_account_daily_converted alter column video_completions set statistics 0;
alter table facts_campaign_daily add column if not exists impressions bigint default 0 not null;
alter table facts_campaign_daily alter column impressions set statistics 0;
alter table facts_campaign_daily add column if not exists clicks bigint default 0 not null;
alter table facts_campaign_daily alter column clicks set statistics 0;
alter table facts_campaign_daily add column if not exists spend double precision default 0 not null;
alter table facts_campaign_daily alter column spend set statistics 0;
alter table facts_campaign_daily add column if not exists conversions double precision default 0 not null;
alter table facts_campaign_daily alter column conversions set statistics 0;
alter table facts_campaign_daily add column if not exists conversion_value double precision default 0 not null;
alter table facts_campaign_daily alter column conversion_value set statistics 0;
alter table facts_campaign_daily add column if not exists video_views bigint default 0 not null;
alter table facts_campaign_daily alter column video_views set statistics 0;
alter table facts_campaign_daily add column if not exists video_completions bigint default 0 not null;
alter table facts_campaign_daily alter column video_completions set statistics 0;
alter table facts_campaign_daily_converted add column if not exists impressions bigint default 0 not null;
alter table facts_campaign_daily_converted alter column impressions set statistics 0;
alter table facts_campaign_daily_converted add column if not exists clicks bigint default 0 not null;
alter table facts_campaign_daily_converted alter column clicks set statistics 0;
alter table facts_campaign_daily_converted add column if not exists spend double precision default 0;
alter table facts_campaign_daily_converted alter column spend set statistics 0;
alter table facts_campaign_daily_converted add column if not exists conversions double precision default 0 not null;
alter table facts_campaign_daily_converted alter column conversions set statistics 0;
alter table facts_campaign_daily_converted add column if not exists conversion_value double precision default 0;
alter table facts_campaign_daily_converted alter column conversion_value set statistics 0;
alter table facts_campaign_daily_converted add column if not exists video_views bigint default 0 not null;
alter table facts_campaign_daily_converted alter column video_views set statistics 0;
alter table facts_campaign_daily_converted add column if not exists video_completions bigint default 0 not null;
alter table facts_campaign_daily_converted alter column video_completions set statistics 0;
alter table facts_campaign_monthly add column if not exists impressions bigint default 0 not null;
alter table facts_campaign_monthly alter column impressions set statistics 0;
alter table facts_campaign_monthly add column if not exists clicks bigint default 0 not null;
alter table facts_campaign_monthly alter column clicks set statistics 0;
alter table facts_campaign_monthly add column if not exists spend double precision default 0 not null;
alter table facts_campaign_monthly alter column spend set statistics 0;
alter table facts_campaign_monthly add column if not exists conversions double precision default 0 not null;
alter table facts_campaign_monthly alter column conversions set statistics 0;
alter table facts_campaign_monthly add column if not exists conversion_value double precision default 0 not null;
alter table facts_campaign_monthly alter column conversion_value set statistics 0;
alter table facts_campaign_monthly add column if not exists video_views bigint default 0 not null;
alter table facts_campaign_monthly alter column video_views set statistics 0;
alter table facts_campaign_monthly add column if not exists video_completions bigint default 0 not null;
alter table facts_campaign_monthly alter column video_completions set statistics 0;
alter table facts_campaign_monthly_converted add column if not exists impressions bigint default 0 not null;
alter table facts_campaign_monthly_converted alter column impressions set statistics 0;
alter table facts_campaign_monthly_converted add column if not exists clicks bigint default 0 not null;
alter table facts_campaign_monthly_converted alter column clicks set statistics 0;
alter table facts_campaign_monthly_converted add column if not exists spend double precision default 0;
alter table facts_campaign_monthly_converted alter column spend set statistics 0;
alter table facts_campaign_monthly_converted add column if not exists conversions double precision default 0 not null;
alter table facts_campaign_monthly_converted alter column conversions set statistics 0;
alter table facts_campaign_monthly_converted add column if not exists conversion_value double precision default 0;
alter table facts_campaign_monthly_converted alter column conversion_value set statistics 0;
alter table facts_campaign_monthly_converted add column if not exists video_views bigint default 0 not null;
alter table facts_campaign_monthly_converted alter column video_views set statistics 0;
alter table facts_campaign_monthly_converted add column if not exists video_completions bigint default 0 not null;
alter table facts_campaign_monthly_converted alter column video_completions set statistics 0;
alter table facts_campaign_spans add column if not exists impressions bigint default 0 not null;
alter table facts_campaign_spans alter column impressions set statistics 0;
alter table facts_campaign_spans add column if not exists clicks bigint default 0 not null;
alter table facts_campaign_spans alter column clicks set statistics 0;
alter table facts_campaign_spans add column if not exists spend double precision default 0;
alter table facts_campaign_spans alter column spend set statistics 0;
alter table facts_campaign_spans add column if not exists conversions double precision default 0 not null;
alter table facts_campaign_spans alter column conversions set statistics 0;
alter table facts_campaign_spans add column if not exists conversion_value double precision default 0;
alter table facts_campaign_spans alter column conversion_value set statistics 0;
alter table facts_campaign_spans add column if not exists video_views bigint default 0 not null;
alter table facts_campaign_spans alter column video_views set statistics 0;
alter table facts_campaign_spans add column if not exists video_completions bigint default 0 not null;
alter table facts_campaign_spans alter column video_completions set statistics 0;
alter table facts_monthly add column if not exists impressions bigint default 0 not null;
alter table facts_monthly alter column impressions set statistics 0;
alter table facts_monthly add column if not exists clicks bigint default 0 not null;
alter table facts_monthly alter column clicks set statistics 0;
alter table facts_monthly add column if not exists spend double precision default 0 not null;
alter table facts_monthly alter column spend set statistics 0;
alter table facts_monthly add column if not exists conversions double precision default 0 not null;
alter table facts_monthly alter column conversions set statistics 0;
alter table facts_monthly add column if not exists conversion_value double precision default 0 not null;
alter table facts_monthly alter column conversion_value set statistics 0;
alter table facts_monthly add column if not exists video_views bigint default 0 not null;
alter table facts_monthly alter column video_views set statistics 0;
alter table facts_monthly add column if not exists video_completions bigint default 0 not null;
alter table facts_monthly alter column video_completions set statistics 0;
alter table facts_monthly_converted add column if not exists impressions bigint default 0 not null;
alter table facts_monthly_converted alter column impressions set statistics 0;
alter table facts_monthly_converted add column if not exists clicks bigint default 0 not null;
alter table facts_monthly_converted alter column clicks set statistics 0;
alter table facts_monthly_converted add column if not exists spend double precision default 0;
alter table facts_monthly_converted alter column spend set statistics 0;
alter table facts_monthly_converted add column if not exists conversions double precision default 0 not null;
alter table facts_monthly_converted alter column conversions set statistics 0;
alter table facts_monthly_converted add column if not exists conversion_value double precision default 0;
alter table facts_monthly_converted alter column conversion_value set statistics 0;
alter table facts_monthly_converted add column if not exists video_views bigint default 0 not null;
alter table facts_monthly_converted alter column video_views set statistics 0;
alter table facts_monthly_converted add column if not exists video_completions bigint default 0 not null;
alter table facts_monthly_converted alter column video_completions set statistics 0;
do $$ begin if not exists (select from pg_attribute where attrelid = 'facts_spans'::regclass and attname = 'impressions' and not attisdropped) then
  alter table facts_spans add column impressions bigint[];
  update facts_spans set impressions = array_fill(0::bigint, array[cardinality(creative_ids)]);
  alter table facts_spans alter column impressions set not null, alter column impressions set storage external;
end if; end $$;
alter table facts_spans alter column impressions set statistics 0;
do $$ begin if not exists (select from pg_attribute where attrelid = 'facts_spans'::regclass and attname = 'clicks' and not attisdropped) then
  alter table facts_spans add column clicks bigint[];
  update facts_spans set clicks = array_fill(0::bigint, array[cardinality(creative_ids)]);
  alter table facts_spans alter column clicks set not null, alter column clicks set storage external;
end if; end $$;
alter table facts_spans alter column clicks set statistics 0;
do $$ begin if not exists (select from pg_attribute where attrelid = 'facts_spans'::regclass and attname = 'spend' and not attisdropped) then
  alter table facts_spans add column spend double precision[];
  update facts_spans set spend = array_fill(0::double precision, array[cardinality(creative_ids)]);
  alter table facts_spans alter column spend set not null, alter column spend set storage external;
end if; end $$;
alter table facts_spans alter column spend set statistics 0;
do $$ begin if not exists (select from pg_attribute where attrelid = 'facts_spans'::regclass and attname = 'conversions' and not attisdropped) then
  alter table facts_spans add column conversions double precision[];
  update facts_spans set conversions = array_fill(0::double precision, array[cardinality(creative_ids)]);
  alter table facts_spans alter column conversions set not null, alter column conversions set storage external;
end if; end $$;
alter table facts_spans alter column conversions set statistics 0;
do $$ begin if not exists (select from pg_attribute where attrelid = 'facts_spans'::regclass and attname = 'conversion_value' and not attisdropped) then
  alter table facts_spans add column conversion_value double precision[];
  update facts_spans set conversion_value = array_fill(0::double precision, array[cardinality(creative_ids)]);
  alter table facts_spans alter column conversion_value set not null, alter column conversion_value set storage external;
end if; end $$;
alter table facts_spans alter column conversion_value set statistics 0;
do $$ begin if not exists (select from pg_attribute where attrelid = 'facts_spans'::regclass and attname = 'video_views' and not attisdropped) then
  alter table facts_spans add column video_views bigint[];
  update facts_spans set video_views = array_fill(0::bigint, array[cardinality(creative_ids)]);
  alter table facts_spans alter column video_views set not null, alter column video_views set storage external;
end if; end $$;
alter table facts_spans alter column video_views set statistics 0;
do $$ begin if not exists (select from pg_attribute where attrelid = 'facts_spans'::regclass and attname = 'video_completions' and not attisdropped) then
  alter table facts_spans add column video_completions bigint[];
  update facts_spans set video_completions = array_fill(0::bigint, array[cardinality(creative_ids)]);
  alter table facts_spans alter column video_completions set not null, alter column video_completions set storage external;
end if; end $$;
alter table facts_spans alter column video_completions set statistics 0;

insert into system_metrics (name, display_name, kind, unit, conversion_derived, description, position) values
  ('impressions', 'Impressions', 'count', 'impressions', false, 'Times an ad was shown.', 1),
  ('clicks', 'Clicks', 'count', 'clicks', false, 'Clicks on an ad.', 2),
  ('spend', 'Spend', 'money', 'currency', false, 'Amount spent, in the report''s currency.', 3),
  ('conversions', 'Conversions', 'decimal', 'conversions', true, 'Conversions attributed to the ads.', 4),
  ('conversion_value', 'Conversion value', 'money', 'currency', true, 'Value of the conversions, in the report''s currency.', 5),
  ('video_views', 'Video views', 'count', 'views', false, 'Video views.', 6),
  ('video_completions', 'Video completions', 'count', 'completions', false, 'Videos watched to the end.', 7)
on conflict (name) do update set display_name = excluded.display_name, kind = excluded.kind, unit = excluded.unit,
  conversion_derived = excluded.conversion_derived, description = excluded.description, position = excluded.position;
update system_metrics s set position = v.position from (values
  ('ctr', 8), ('cpc', 9), ('cpm', 10), ('cpa', 11), ('conversion_rate', 12), ('roas', 13), ('view_rate', 14), ('completion_rate', 15)
) v(name, position) where s.name = v.name;

CREATE OR REPLACE FUNCTION public.facts_after_write()
 RETURNS trigger
 LANGUAGE plpgsql
 SET enable_mergejoin TO 'off'
 SET work_mem TO '64MB'
 SET enable_sort TO 'off'
AS $function$
declare
  v_accounts uuid[];
  v_days date[];
begin
  if tg_op = 'INSERT' then
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days
    from (select distinct ad_account_id, day from new_rows) t;
  elsif tg_op = 'DELETE' then
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days
    from (select distinct ad_account_id, day from old_rows) t;
  elsif current_setting('readout.updates_change', true) = 'on' then
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days
    from (select distinct ad_account_id, day from new_rows) t;
  else
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days
    from (
      select distinct ad_account_id, day
      from new_rows n full join old_rows o using (ad_account_id, day, creative_id)
      where n.creative_id is null or o.creative_id is null
        or (n.organization_id, n.campaign_id, n.impressions, n.clicks, n.spend, n.conversions, n.conversion_value,
            n.video_views, n.video_completions)
          is distinct from (o.organization_id, o.campaign_id, o.impressions, o.clicks, o.spend, o.conversions,
              o.conversion_value, o.video_views, o.video_completions)
    ) t;
  end if;
  if v_accounts is null then
    return null;
  end if;
  perform stamp_fact_writes(v_accounts, v_days);
  if current_setting('readout.defer_rollups', true) = 'on' then
    insert into deferred_rollup_days select * from unnest(v_accounts, v_days) on conflict do nothing;
  else
    perform rebuild_rollups(v_accounts, v_days);
  end if;
  return null;
end
$function$;

drop function if exists public.month_pieces(p_account uuid, p_month date, p_source text, p_target text);
CREATE OR REPLACE FUNCTION public.month_pieces(p_account uuid, p_month date, p_source text, p_target text)
 RETURNS TABLE(organization_id uuid, campaign_id uuid, creative_id uuid, impressions bigint, clicks bigint,
     spend double precision, conversions double precision, conversion_value double precision, video_views bigint,
     video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  select a.organization_id, s.campaign_id, s.creative_id, s.impressions, s.clicks, s.spend, s.conversions,
         s.conversion_value, s.video_views, s.video_completions
  from ad_accounts a
  cross join span_pieces(p_month, (p_month + interval '1 month')::date - 1) p
  cross join lateral (
    select c.campaign_id, c.creative_id, c.impressions, c.clicks, c.spend, c.conversions, c.conversion_value,
           c.video_views, c.video_completions
    from span_creatives(array[p_account], p.level, p.start, p.start, p_target) c
    where p.level > 0
    union all
    select f.campaign_id, f.creative_id, f.impressions, f.clicks, f.spend * x.factor, f.conversions,
           f.conversion_value * x.factor, f.video_views, f.video_completions
    -- The day's rate once (offset 0 keeps it a row of its own): pulled up, it is looked up a fact and money column.
    from (select case when p_source = p_target then 1::float8 else fx_factor(p_source, p_target, p.start) end
          offset 0) x(factor)
    cross join lateral (select * from facts f where f.ad_account_id = p_account and f.day = p.start offset 0) f
    where p.level = 0
  ) s
  where a.id = p_account
$function$;

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
           sum(s.impressions), sum(s.clicks), case when count(*) = count(s.spend) then sum(s.spend) end,
           sum(s.conversions), case when count(*) = count(s.conversion_value) then sum(s.conversion_value) end,
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
         sum(c.impressions), sum(c.clicks), case when count(*) = count(c.spend) then sum(c.spend) end,
         sum(c.conversions), case when count(*) = count(c.conversion_value) then sum(c.conversion_value) end,
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
  insert into facts_account_daily_converted (currency, organization_id, ad_account_id, day, impressions, clicks, spend,
      conversions, conversion_value, video_views, video_completions)
  select c.currency, c.organization_id, c.ad_account_id, c.day, sum(c.impressions), sum(c.clicks),
         case when count(*) = count(c.spend) then sum(c.spend) end, sum(c.conversions),
         case when count(*) = count(c.conversion_value) then sum(c.conversion_value) end, sum(c.video_views),
         sum(c.video_completions)
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
                 case when count(*) = count(c.spend) then sum(c.spend) end as spend, sum(c.conversions) as conversions,
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

drop function if exists public.report_account_days(p_accounts uuid[], p_from date, p_to date, p_currency text);
CREATE OR REPLACE FUNCTION public.report_account_days(p_accounts uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, day date, impressions bigint, clicks bigint, spend double precision,
     conversions double precision, conversion_value double precision, video_views bigint, video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  with accounts as (
    select a.id, a.currency, a.currency = p_currency as same,
           exists (select 1 from converted_currencies r where r.organization_id = a.organization_id and r.currency = p_currency) as rolled
    from ad_accounts a where a.id = any(p_accounts)
  ), same as (
    select array_agg(id) as ids from accounts where same
  ), rolled as (
    select array_agg(id) as ids from accounts where not same and rolled
  ), daily as (
    select array_agg(id) as ids from accounts where not same and not rolled
  ), factors as materialized (
    select c.currency, d::date as day, fx_factor(c.currency, p_currency, d::date) as factor
    from (select distinct currency from accounts where not same and not rolled) c
    cross join generate_series(p_from, p_to, interval '1 day') d
  )
  select d.ad_account_id, d.day, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value, d.video_views,
         d.video_completions
  from facts_account_daily d, same s
  where d.ad_account_id = any(s.ids) and d.day >= p_from and d.day <= p_to
  union all
  select d.ad_account_id, d.day, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value, d.video_views,
         d.video_completions
  from facts_account_daily_converted d, rolled o
  where d.currency = p_currency and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
  union all
  select d.ad_account_id, d.day, d.impressions, d.clicks, d.spend * x.factor, d.conversions,
         d.conversion_value * x.factor, d.video_views, d.video_completions
  from facts_account_daily d
  join accounts a on a.id = d.ad_account_id
  join factors x on x.currency = a.currency and x.day = d.day
  , daily o
  -- Uncorrelated, so PostgreSQL skips the branch when every account has its rollup (a one-time filter).
  where exists (select 1 from accounts where not same and not rolled) and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
$function$;

drop function if exists public.report_account_facts(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text);
CREATE OR REPLACE FUNCTION public.report_account_facts(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, day date, impressions bigint, clicks bigint, spend double precision,
     conversions double precision, conversion_value double precision, video_views bigint, video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  select f.ad_account_id, f.day, f.impressions, f.clicks, f.spend, f.conversions, f.conversion_value, f.video_views,
         f.video_completions
  from report_account_days(p_accounts, p_from, p_to, p_currency) f
  where p_campaigns is null
  union all
  select f.ad_account_id, f.day, f.impressions, f.clicks, f.spend, f.conversions, f.conversion_value, f.video_views,
         f.video_completions
  from report_campaign_facts(p_accounts, p_campaigns, p_from, p_to, p_currency) f
  where p_campaigns is not null
$function$;

drop function if exists public.report_account_periods(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text, p_interval text, p_since timestamp with time zone);
CREATE OR REPLACE FUNCTION public.report_account_periods(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text, p_interval text, p_since timestamp with time zone)
 RETURNS TABLE(ad_account_id uuid, period date, impressions bigint, clicks bigint, spend double precision,
     conversions double precision, conversion_value double precision, video_views bigint, video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  select f.ad_account_id, period_start(p_interval, f.day), f.impressions, f.clicks, f.spend, f.conversions,
         f.conversion_value, f.video_views, f.video_completions
  from report_account_days(p_accounts, p_from, p_to, p_currency) f
  where p_interval <> 'month' and p_campaigns is null
    and (p_since is null or period_start(p_interval, f.day) in (select c.period from changed_periods(p_accounts, p_from, p_to, p_interval, p_since) c))
  union all
  select f.ad_account_id, f.period, f.impressions, f.clicks, f.spend, f.conversions, f.conversion_value, f.video_views,
         f.video_completions
  from report_campaign_periods(p_accounts, p_campaigns, p_from, p_to, p_currency, p_interval, p_since) f
  where p_interval = 'month' or p_campaigns is not null
$function$;

drop function if exists public.report_campaign_days(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text);
CREATE OR REPLACE FUNCTION public.report_campaign_days(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, day date, impressions bigint, clicks bigint,
     spend double precision, conversions double precision, conversion_value double precision, video_views bigint,
     video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  with accounts as (
    select a.id, a.currency, a.currency = p_currency as same,
           exists (select 1 from converted_currencies r where r.organization_id = a.organization_id and r.currency = p_currency) as rolled
    from ad_accounts a where a.id = any(p_accounts)
  ), same as (
    select array_agg(id) as ids from accounts where same
  ), rolled as (
    select array_agg(id) as ids from accounts where not same and rolled
  ), daily as (
    select array_agg(id) as ids from accounts where not same and not rolled
  ), factors as materialized (
    select c.currency, d::date as day, fx_factor(c.currency, p_currency, d::date) as factor
    from (select distinct currency from accounts where not same and not rolled) c
    cross join generate_series(p_from, p_to, interval '1 day') d
  )
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value,
         d.video_views, d.video_completions
  from facts_campaign_daily d, same s
  where d.ad_account_id = any(s.ids) and d.day >= p_from and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value,
         d.video_views, d.video_completions
  from facts_campaign_daily_converted d, rolled o
  where d.currency = p_currency and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend * x.factor, d.conversions,
         d.conversion_value * x.factor, d.video_views, d.video_completions
  from facts_campaign_daily d
  join accounts a on a.id = d.ad_account_id
  join factors x on x.currency = a.currency and x.day = d.day
  , daily o
  -- Uncorrelated, so PostgreSQL skips the branch when every account has its rollup (a one-time filter).
  where exists (select 1 from accounts where not same and not rolled) and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
$function$;

drop function if exists public.report_campaign_facts(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text);
CREATE OR REPLACE FUNCTION public.report_campaign_facts(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, day date, impressions bigint, clicks bigint,
     spend double precision, conversions double precision, conversion_value double precision, video_views bigint,
     video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  with accounts as (
    select a.id, a.currency, a.currency = p_currency as same,
           exists (select 1 from converted_currencies r where r.organization_id = a.organization_id and r.currency = p_currency) as rolled
    from ad_accounts a where a.id = any(p_accounts)
  ), same as (
    select array_agg(id) as ids from accounts where same
  ), rolled as (
    select array_agg(id) as ids from accounts where not same and rolled
  ), daily as (
    select array_agg(id) as ids from accounts where not same and not rolled
  ), factors as materialized (
    select c.currency, d::date as day, fx_factor(c.currency, p_currency, d::date) as factor
    from (select distinct currency from accounts where not same and not rolled) c
    cross join generate_series(p_from, p_to, interval '1 day') d
  )
  select m.ad_account_id, m.campaign_id, m.month, m.impressions, m.clicks, m.spend, m.conversions, m.conversion_value,
         m.video_views, m.video_completions
  from facts_campaign_monthly m, same s
  where m.ad_account_id = any(p_accounts) and m.ad_account_id = any(s.ids) and m.month >= first_full_month(p_from) and m.month < after_full_month(p_from, p_to)
    and (p_campaigns is null or m.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value,
         d.video_views, d.video_completions
  from facts_campaign_daily d, same s
  where d.ad_account_id = any(p_accounts) and d.ad_account_id = any(s.ids) and d.day >= p_from and d.day <= p_to and d.day < first_full_month(p_from)
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value,
         d.video_views, d.video_completions
  from facts_campaign_daily d, same s
  where d.ad_account_id = any(p_accounts) and d.ad_account_id = any(s.ids) and d.day >= after_full_month(p_from, p_to) and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select m.ad_account_id, m.campaign_id, m.month, m.impressions, m.clicks, m.spend, m.conversions, m.conversion_value,
         m.video_views, m.video_completions
  from facts_campaign_monthly_converted m, rolled o
  where m.currency = p_currency and m.ad_account_id = any(p_accounts) and m.ad_account_id = any(o.ids) and m.month >= first_full_month(p_from) and m.month < after_full_month(p_from, p_to)
    and (p_campaigns is null or m.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value,
         d.video_views, d.video_completions
  from facts_campaign_daily_converted d, rolled o
  where d.currency = p_currency and d.ad_account_id = any(p_accounts) and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to and d.day < first_full_month(p_from)
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value,
         d.video_views, d.video_completions
  from facts_campaign_daily_converted d, rolled o
  where d.currency = p_currency and d.ad_account_id = any(p_accounts) and d.ad_account_id = any(o.ids) and d.day >= after_full_month(p_from, p_to) and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend * x.factor, d.conversions,
         d.conversion_value * x.factor, d.video_views, d.video_completions
  from facts_campaign_daily d
  join accounts a on a.id = d.ad_account_id
  join factors x on x.currency = a.currency and x.day = d.day
  , daily o
  -- Uncorrelated, so PostgreSQL skips the branch when every account has its rollup (a one-time filter).
  where exists (select 1 from accounts where not same and not rolled) and d.ad_account_id = any(p_accounts) and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
$function$;

drop function if exists public.report_campaign_periods(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text, p_interval text, p_since timestamp with time zone);
CREATE OR REPLACE FUNCTION public.report_campaign_periods(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text, p_interval text, p_since timestamp with time zone)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, period date, impressions bigint, clicks bigint,
     spend double precision, conversions double precision, conversion_value double precision, video_views bigint,
     video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  select f.ad_account_id, f.campaign_id, period_start('month', f.day), f.impressions, f.clicks, f.spend, f.conversions,
         f.conversion_value, f.video_views, f.video_completions
  from report_campaign_facts(p_accounts, p_campaigns, p_from, p_to, p_currency) f
  where p_interval = 'month'
    and (p_since is null or period_start('month', f.day) in (select c.period from changed_periods(p_accounts, p_from, p_to, 'month', p_since) c))
  union all
  select f.ad_account_id, f.campaign_id, period_start(p_interval, f.day), f.impressions, f.clicks, f.spend,
         f.conversions, f.conversion_value, f.video_views, f.video_completions
  from report_campaign_days(p_accounts, p_campaigns, p_from, p_to, p_currency) f
  where p_interval <> 'month'
    and (p_since is null or period_start(p_interval, f.day) in (select c.period from changed_periods(p_accounts, p_from, p_to, p_interval, p_since) c))
$function$;

drop function if exists public.report_campaign_spans(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text);
CREATE OR REPLACE FUNCTION public.report_campaign_spans(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, impressions bigint, clicks bigint, spend double precision,
     conversions double precision, conversion_value double precision, video_views bigint, video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  with accounts as (
    select a.id, a.currency, a.currency = p_currency as same,
           exists (select 1 from converted_currencies r where r.organization_id = a.organization_id and r.currency = p_currency) as rolled
    from ad_accounts a where a.id = any(p_accounts)
  ), same as (
    select array_agg(id) as ids from accounts where same
  ), rolled as (
    select array_agg(id) as ids from accounts where not same and rolled
  ), kept as (
    select array_agg(id) as ids from accounts where same or rolled
  ), pieces as materialized (
    select p.level, p.start from report_span_pieces(p_accounts, p_from, p_to) p
  )
  select s.ad_account_id, s.campaign_id, s.impressions, s.clicks, s.spend, s.conversions, s.conversion_value,
         s.video_views, s.video_completions
  from pieces p, kept k
  cross join lateral (
    select * from facts_campaign_spans s
    where s.ad_account_id = any(k.ids) and s.level = p.level and s.start = p.start and s.currency = p_currency
      and (p_campaigns is null or s.campaign_id = any(p_campaigns))
    offset 0
  ) s
  where p.level > 0
  union all
  select d.ad_account_id, d.campaign_id, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value,
         d.video_views, d.video_completions
  from pieces p, same o
  cross join lateral (
    select * from facts_campaign_daily d
    where d.ad_account_id = any(o.ids) and d.day = p.start and (p_campaigns is null or d.campaign_id = any(p_campaigns))
    offset 0
  ) d
  where p.level = 0
  union all
  select d.ad_account_id, d.campaign_id, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value,
         d.video_views, d.video_completions
  from pieces p, rolled o
  cross join lateral (
    select * from facts_campaign_daily_converted d
    where d.currency = p_currency and d.ad_account_id = any(o.ids) and d.day = p.start
      and (p_campaigns is null or d.campaign_id = any(p_campaigns))
    offset 0
  ) d
  where p.level = 0
  union all
  select f.ad_account_id, f.campaign_id, f.impressions, f.clicks, f.spend, f.conversions, f.conversion_value,
         f.video_views, f.video_completions
  from report_campaign_facts(array(select id from accounts where not same and not rolled), p_campaigns, p_from, p_to,
                             p_currency) f
  where exists (select 1 from accounts where not same and not rolled)
$function$;

drop function if exists public.report_creative_days(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text);
CREATE OR REPLACE FUNCTION public.report_creative_days(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, creative_id uuid, day date, impressions bigint, clicks bigint,
     spend double precision, conversions double precision, conversion_value double precision, video_views bigint,
     video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  with accounts as (
    select a.id, a.currency, a.currency = p_currency as same from ad_accounts a where a.id = any(p_accounts)
  ), same as (
    select array_agg(id) as ids from accounts where same
  ), other as (
    select array_agg(id) as ids from accounts where not same
  ), factors as materialized (
    select c.currency, d::date as day, fx_factor(c.currency, p_currency, d::date) as factor
    from (select distinct currency from accounts where not same) c
    cross join generate_series(p_from, p_to, interval '1 day') d
  )
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks, f.spend, f.conversions,
         f.conversion_value, f.video_views, f.video_completions
  from facts f, same s
  where f.ad_account_id = any(s.ids) and f.day >= p_from and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks, f.spend * x.factor,
         f.conversions, f.conversion_value * x.factor, f.video_views, f.video_completions
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  , other o
  where exists (select 1 from accounts where not same) and f.ad_account_id = any(o.ids) and f.day >= p_from and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
$function$;

drop function if exists public.report_creative_periods(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text, p_interval text, p_since timestamp with time zone);
CREATE OR REPLACE FUNCTION public.report_creative_periods(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text, p_interval text, p_since timestamp with time zone)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, creative_id uuid, period date, impressions bigint, clicks bigint,
     spend double precision, conversions double precision, conversion_value double precision, video_views bigint,
     video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  select f.ad_account_id, f.campaign_id, f.creative_id, period_start('month', f.day), f.impressions, f.clicks, f.spend,
         f.conversions, f.conversion_value, f.video_views, f.video_completions
  from report_facts(p_accounts, p_campaigns, p_from, p_to, p_currency) f
  where p_interval = 'month'
    and (p_since is null or period_start('month', f.day) in (select c.period from changed_periods(p_accounts, p_from, p_to, 'month', p_since) c))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, period_start(p_interval, f.day), f.impressions, f.clicks,
         f.spend, f.conversions, f.conversion_value, f.video_views, f.video_completions
  from report_creative_days(p_accounts, p_campaigns, p_from, p_to, p_currency) f
  where p_interval <> 'month'
    and (p_since is null or period_start(p_interval, f.day) in (select c.period from changed_periods(p_accounts, p_from, p_to, p_interval, p_since) c))
$function$;

drop function if exists public.report_creative_spans(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text);
CREATE OR REPLACE FUNCTION public.report_creative_spans(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, creative_id uuid, impressions bigint, clicks bigint,
     spend double precision, conversions double precision, conversion_value double precision, video_views bigint,
     video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  with accounts as (
    select a.id, a.currency, a.currency = p_currency as same,
           exists (select 1 from converted_currencies r where r.organization_id = a.organization_id and r.currency = p_currency) as rolled
    from ad_accounts a where a.id = any(p_accounts)
  ), kept as (
    select array_agg(id) as ids from accounts where same or rolled
  ), pieces as materialized (
    select p.level, p.start from report_span_pieces(p_accounts, p_from, p_to) p
  ), day_factors as materialized (
    -- A single day's rate once per currency, not once per fact.
    select c.currency, p.start as day,
           case when c.currency = p_currency then 1::float8 else fx_factor(c.currency, p_currency, p.start) end as factor
    from (select distinct currency from accounts where same or rolled) c
    cross join pieces p
    where p.level = 0
  )
  select c.ad_account_id, c.campaign_id, c.creative_id, c.impressions, c.clicks, c.spend, c.conversions,
         c.conversion_value, c.video_views, c.video_completions
  from pieces p, kept k
  cross join lateral span_creatives(k.ids, p.level, p.start, p.start, p_currency) c
  where p.level > 0 and (p_campaigns is null or c.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.impressions, f.clicks, f.spend * x.factor, f.conversions,
         f.conversion_value * x.factor, f.video_views, f.video_completions
  from pieces p
  join accounts a on a.same or a.rolled
  join day_factors x on x.currency = a.currency and x.day = p.start
  cross join lateral (
    select * from facts f
    where f.ad_account_id = a.id and f.day = p.start and (p_campaigns is null or f.campaign_id = any(p_campaigns))
    offset 0
  ) f
  where p.level = 0
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.impressions, f.clicks, f.spend, f.conversions,
         f.conversion_value, f.video_views, f.video_completions
  from report_facts(array(select id from accounts where not same and not rolled), p_campaigns, p_from, p_to, p_currency) f
  -- Uncorrelated: a one-time filter, so the function is not run at all when every account has its spans.
  where exists (select 1 from accounts where not same and not rolled)
$function$;

drop function if exists public.report_facts(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text);
CREATE OR REPLACE FUNCTION public.report_facts(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, creative_id uuid, day date, impressions bigint, clicks bigint,
     spend double precision, conversions double precision, conversion_value double precision, video_views bigint,
     video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  with accounts as (
    select a.id, a.currency, a.currency = p_currency as same,
           exists (select 1 from converted_currencies r where r.organization_id = a.organization_id and r.currency = p_currency) as rolled
    from ad_accounts a where a.id = any(p_accounts)
  ), same as (
    select array_agg(id) as ids from accounts where same
  ), rolled as (
    select array_agg(id) as ids from accounts where not same and rolled
  ), daily as (
    select array_agg(id) as ids from accounts where not same and not rolled
  ), factors as materialized (
    select c.currency, d::date as day, fx_factor(c.currency, p_currency, d::date) as factor
    from (select distinct currency from accounts where not same) c
    cross join generate_series(p_from, p_to, interval '1 day') d
    where d < first_full_month(p_from) or d >= after_full_month(p_from, p_to) or exists (select 1 from accounts where not same and not rolled)
  )
  select m.ad_account_id, m.campaign_id, m.creative_id, m.month, m.impressions, m.clicks, m.spend, m.conversions,
         m.conversion_value, m.video_views, m.video_completions
  from facts_monthly m, same s
  where m.ad_account_id = any(p_accounts) and m.ad_account_id = any(s.ids) and m.month >= first_full_month(p_from) and m.month < after_full_month(p_from, p_to)
    and (p_campaigns is null or m.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks, f.spend, f.conversions,
         f.conversion_value, f.video_views, f.video_completions
  from facts f, same s
  where f.ad_account_id = any(p_accounts) and f.ad_account_id = any(s.ids) and f.day >= p_from and f.day <= p_to and f.day < first_full_month(p_from)
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks, f.spend, f.conversions,
         f.conversion_value, f.video_views, f.video_completions
  from facts f, same s
  where f.ad_account_id = any(p_accounts) and f.ad_account_id = any(s.ids) and f.day >= after_full_month(p_from, p_to) and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select m.ad_account_id, m.campaign_id, m.creative_id, m.month, m.impressions, m.clicks, m.spend, m.conversions,
         m.conversion_value, m.video_views, m.video_completions
  from facts_monthly_converted m, rolled o
  where m.currency = p_currency and m.ad_account_id = any(p_accounts) and m.ad_account_id = any(o.ids) and m.month >= first_full_month(p_from) and m.month < after_full_month(p_from, p_to)
    and (p_campaigns is null or m.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks, f.spend * x.factor,
         f.conversions, f.conversion_value * x.factor, f.video_views, f.video_completions
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  , rolled o
  where f.ad_account_id = any(p_accounts) and f.ad_account_id = any(o.ids) and f.day >= p_from and f.day <= p_to and f.day < first_full_month(p_from)
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks, f.spend * x.factor,
         f.conversions, f.conversion_value * x.factor, f.video_views, f.video_completions
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  , rolled o
  where f.ad_account_id = any(p_accounts) and f.ad_account_id = any(o.ids) and f.day >= after_full_month(p_from, p_to) and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks, f.spend * x.factor,
         f.conversions, f.conversion_value * x.factor, f.video_views, f.video_completions
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  , daily o
  -- Uncorrelated, so PostgreSQL skips the branch when every account has its rollup (a one-time filter).
  where exists (select 1 from accounts where not same and not rolled) and f.ad_account_id = any(p_accounts) and f.ad_account_id = any(o.ids) and f.day >= p_from and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
$function$;

drop function if exists public.span_creatives(p_accounts uuid[], p_level integer, p_from date, p_to date, p_currency text);
CREATE OR REPLACE FUNCTION public.span_creatives(p_accounts uuid[], p_level integer, p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, start date, campaign_id uuid, creative_id uuid, impressions bigint, clicks bigint,
     spend double precision, conversions double precision, conversion_value double precision, video_views bigint,
     video_completions bigint)
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  select c.ad_account_id, c.start, c.campaign_id, c.creative_id, c.impressions, c.clicks, c.spend, c.conversions,
         c.conversion_value, c.video_views, c.video_completions
  from (
    select s.ad_account_id, s.start, unnest(s.campaign_ids) as campaign_id, unnest(s.creative_ids) as creative_id,
           unnest(s.impressions) as impressions, unnest(s.clicks) as clicks, unnest(s.spend) as spend,
           unnest(s.conversions) as conversions, unnest(s.conversion_value) as conversion_value,
           unnest(s.video_views) as video_views, unnest(s.video_completions) as video_completions,
           generate_series(1, cardinality(s.creative_ids)) as element
    from facts_spans s
    where s.ad_account_id = any(p_accounts) and s.level = p_level and s.start between p_from and p_to
      and s.currency = p_currency
  ) c
$function$;

-- How numbers are computed and written (src/report/numberRules.ts): rendered rows write them as the server does.

-- JavaScript's Math.round: halves round up, towards +Infinity (PostgreSQL's round() takes them away from zero). Metric
-- values are rounded to 6 decimal places with it (tidySql).
create or replace function js_round(x double precision) returns double precision
language sql immutable parallel safe as $$
  select case when ceil(x) - 0.5::float8 > x then ceil(x) - 1::float8 else ceil(x) end
$$;

-- The rest of js_number: PostgreSQL's shortest exponent form ("1.25e-05", "1e+15") rewritten as JavaScript's
-- Number::toString writes it: 0.digits × 10^n in plain digits for -6 < n <= 21, an exponent without leading
-- zeros beyond.
create or replace function js_number_exponent(t text) returns text
language plpgsql immutable parallel safe as $$
declare
  m text[] := regexp_match(t, '^(-?)([0-9])(?:\.([0-9]+))?e([-+][0-9]+)$');
  digits text;
  k int;
  n int;
  out text;
begin
  if m is null then
    return t;
  end if;
  digits := m[2] || coalesce(m[3], '');
  k := length(digits);
  n := m[4]::int + 1; -- the value is 0.digits × 10^n
  if k <= n and n <= 21 then
    out := digits || repeat('0', n - k);
  elsif 0 < n and n <= 21 then
    out := left(digits, n) || '.' || substr(digits, n + 1);
  elsif -6 < n and n <= 0 then
    out := '0.' || repeat('0', -n) || digits;
  else
    out := left(digits, 1) || case when k > 1 then '.' || substr(digits, 2) else '' end
        || 'e' || case when n - 1 >= 0 then '+' else '-' end || abs(n - 1)::text;
  end if;
  return m[1] || out;
end
$$;

-- A number as JavaScript's String(number) writes it. Both print the shortest digits that read back as the same
-- double (PostgreSQL 12 and later, with extra_float_digits above 0, which the server's connections set); they differ
-- only in where they switch to an exponent (PostgreSQL below 1e-4 and from 1e15), and -0, which JavaScript writes as 0.
create or replace function js_number(v double precision) returns text
language sql immutable parallel safe as $$
  select case when v = 0 then '0'
              when abs(v) >= 1e-4 and abs(v) < 1e15 then v::text
              else js_number_exponent(v::text) end
$$;

-- A custom formula's operations (FORMULA_OPERATIONS), as formulaOperations.ts has them in JavaScript: the same IEEE
-- operations in the same order, null past 1e+300 where PostgreSQL would raise an error. Null in, null out.
create or replace function formula_mul(a double precision, b double precision) returns double precision
language sql immutable parallel safe as $$
  select case when a = 0 or b = 0 then a * b
              when abs(a) > 1 and abs(b) > 1e+300::float8 / abs(a) then null
              when abs(a) < 1 and abs(b) < 1e-300::float8 / abs(a) then 0::float8
         else a * b end
$$;

create or replace function formula_div(a double precision, b double precision) returns double precision
language sql immutable parallel safe as $$
  select case when b = 0 then null
              when a = 0 then a / b
              when abs(b) < 1 and abs(a) > 1e+300::float8 * abs(b) then null
              when abs(b) > 1 and abs(a) < 1e-300::float8 * abs(b) then 0::float8
         else a / b end
$$;

create or replace function formula_add(a double precision, b double precision) returns double precision
language sql immutable parallel safe as $$
  select case when abs(a) <= 1e+300::float8 and abs(b) <= 1e+300::float8 then a + b
         else null end
$$;

create or replace function formula_sub(a double precision, b double precision) returns double precision
language sql immutable parallel safe as $$
  select case when abs(a) <= 1e+300::float8 and abs(b) <= 1e+300::float8 then a - b
         else null end
$$;
