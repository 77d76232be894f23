-- 025: the report functions of migration 019 planned from what the request says. Their date bounds (the range's
-- first whole month and the month after its last) are immutable functions of the parameters, folded to constants when
-- the query is planned: from a CTE, PostgreSQL would plan the edge days' reads blind and could scan every fact. Every
-- read also names the requested accounts, a condition the facts' index can use.

-- The first day of the range's first whole month: p_from itself when it is a month's first day.
create function first_full_month(p_from date) returns date
language sql immutable parallel safe as $$
  select case when extract(day from p_from) = 1 then p_from
              else (date_trunc('month', p_from::timestamp) + interval '1 month')::date end
$$;

-- The first day after the range's last whole month (never before first_full_month: a range inside one month has
-- no whole month).
create function after_full_month(p_from date, p_to date) returns date
language sql immutable parallel safe as $$
  select greatest(date_trunc('month', (p_to + 1)::timestamp)::date, first_full_month(p_from))
$$;

create or replace function report_campaign_facts(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
returns table (
  ad_account_id uuid, campaign_id uuid, day date,
  impressions bigint, clicks bigint, spend double precision, conversions double precision,
  conversion_value double precision, video_views bigint, video_completions bigint)
language sql stable as $$
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
  select m.ad_account_id, m.campaign_id, m.month, m.impressions, m.clicks, m.spend, m.conversions,
         m.conversion_value, m.video_views, m.video_completions
  from facts_campaign_monthly m, same s
  where m.ad_account_id = any(p_accounts) and m.ad_account_id = any(s.ids) and m.month >= first_full_month(p_from) and m.month < after_full_month(p_from, p_to)
    and (p_campaigns is null or m.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions,
         d.conversion_value, d.video_views, d.video_completions
  from facts_campaign_daily d, same s
  where d.ad_account_id = any(p_accounts) and d.ad_account_id = any(s.ids) and d.day >= p_from and d.day <= p_to and d.day < first_full_month(p_from)
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions,
         d.conversion_value, d.video_views, d.video_completions
  from facts_campaign_daily d, same s
  where d.ad_account_id = any(p_accounts) and d.ad_account_id = any(s.ids) and d.day >= after_full_month(p_from, p_to) and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select m.ad_account_id, m.campaign_id, m.month, m.impressions, m.clicks, m.spend, m.conversions,
         m.conversion_value, m.video_views, m.video_completions
  from facts_campaign_monthly_converted m, rolled o
  where m.currency = p_currency and m.ad_account_id = any(p_accounts) and m.ad_account_id = any(o.ids) and m.month >= first_full_month(p_from) and m.month < after_full_month(p_from, p_to)
    and (p_campaigns is null or m.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions,
         d.conversion_value, d.video_views, d.video_completions
  from facts_campaign_daily_converted d, rolled o
  where d.currency = p_currency and d.ad_account_id = any(p_accounts) and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to and d.day < first_full_month(p_from)
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions,
         d.conversion_value, d.video_views, d.video_completions
  from facts_campaign_daily_converted d, rolled o
  where d.currency = p_currency and d.ad_account_id = any(p_accounts) and d.ad_account_id = any(o.ids) and d.day >= after_full_month(p_from, p_to) and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks,
         d.spend * x.factor, d.conversions, d.conversion_value * x.factor, d.video_views, d.video_completions
  from facts_campaign_daily d
  join accounts a on a.id = d.ad_account_id
  join factors x on x.currency = a.currency and x.day = d.day
  , daily o
  -- Uncorrelated, so PostgreSQL skips the branch when every account has its rollup (a one-time filter).
  where exists (select 1 from accounts where not same and not rolled) and d.ad_account_id = any(p_accounts) and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
$$;

-- report_facts (007) likewise, per creative; the edge days of accounts in another currency are converted as they are
-- read, a factor a day.
create or replace function report_facts(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
returns table (
  ad_account_id uuid, campaign_id uuid, creative_id uuid, day date,
  impressions bigint, clicks bigint, spend double precision, conversions double precision,
  conversion_value double precision, video_views bigint, video_completions bigint)
language sql stable as $$
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
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks,
         f.spend * x.factor, f.conversions, f.conversion_value * x.factor, f.video_views, f.video_completions
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  , rolled o
  where f.ad_account_id = any(p_accounts) and f.ad_account_id = any(o.ids) and f.day >= p_from and f.day <= p_to and f.day < first_full_month(p_from)
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks,
         f.spend * x.factor, f.conversions, f.conversion_value * x.factor, f.video_views, f.video_completions
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  , rolled o
  where f.ad_account_id = any(p_accounts) and f.ad_account_id = any(o.ids) and f.day >= after_full_month(p_from, p_to) and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks,
         f.spend * x.factor, f.conversions, f.conversion_value * x.factor, f.video_views, f.video_completions
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  , daily o
  -- Uncorrelated, so PostgreSQL skips the branch when every account has its rollup (a one-time filter).
  where exists (select 1 from accounts where not same and not rolled) and f.ad_account_id = any(p_accounts) and f.ad_account_id = any(o.ids) and f.day >= p_from and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
$$;
