-- 006: the facts a report reads, money converted into its currency per day (docs/decisions.md §5, §6).

-- USD per unit of a currency on a day: that day's rate, else the latest earlier one, else (before the first
-- rate) the earliest one. USD is 1.
create function usd_rate_on(p_currency text, p_day date)
returns double precision
language sql stable as $$
  select case when p_currency = 'USD' then 1.0::double precision else coalesce(
    (select r.usd_per_unit from fx_rates r where r.currency = p_currency and r.day <= p_day order by r.day desc limit 1),
    (select r.usd_per_unit from fx_rates r where r.currency = p_currency order by r.day limit 1)) end
$$;

-- Daily facts of the given ad accounts (and, for segment reports, campaigns) within [p_from, p_to], with spend and
-- conversion value converted into p_currency at each day's rate. A plain SQL function, so the planner inlines it.
create function report_facts(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
returns table (
  ad_account_id uuid, campaign_id uuid, creative_id uuid, day date,
  impressions bigint, clicks bigint, spend double precision, conversions double precision,
  conversion_value double precision, video_views bigint, video_completions bigint)
language sql stable as $$
  with accounts as (
    select a.id, a.currency from ad_accounts a where a.id = any(p_accounts)
  ), factors as (
    select c.currency, d::date as day,
           case when c.currency = p_currency then 1.0::double precision
                else usd_rate_on(c.currency, d::date) / usd_rate_on(p_currency, d::date) end as factor
    from (select distinct currency from accounts) c
    cross join generate_series(p_from, p_to, interval '1 day') d
  )
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day,
         f.impressions, f.clicks, f.spend * x.factor, f.conversions, f.conversion_value * x.factor,
         f.video_views, f.video_completions
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  where f.ad_account_id = any(p_accounts)
    and f.day between p_from and p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
$$;
