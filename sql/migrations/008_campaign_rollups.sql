-- 008: rollups per campaign, by day and by month, for every grouping that never looks below the campaign (total,
-- campaign, segment, month, ad account): the creative-level rollup of 007 holds a row for each of a campaign's
-- creatives, many times the rows these groupings need. The statement-level triggers of 007 keep all three rollups
-- exact, whoever writes facts.

create table facts_campaign_daily (
  organization_id uuid not null,
  ad_account_id uuid not null,
  campaign_id uuid not null,
  day date not null,
  impressions bigint not null,
  clicks bigint not null,
  spend double precision not null,
  conversions double precision not null,
  conversion_value double precision not null,
  video_views bigint not null,
  video_completions bigint not null,
  primary key (ad_account_id, day, campaign_id)
);

create table facts_campaign_monthly (
  organization_id uuid not null,
  ad_account_id uuid not null,
  campaign_id uuid not null,
  month date not null,
  impressions bigint not null,
  clicks bigint not null,
  spend double precision not null,
  conversions double precision not null,
  conversion_value double precision not null,
  video_views bigint not null,
  video_completions bigint not null,
  primary key (ad_account_id, month, campaign_id)
);

-- Recomputes the campaign-day rows of the given (account, day) pairs from facts.
create function rebuild_facts_campaign_daily(p_accounts uuid[], p_days date[])
returns void
language sql as $$
  delete from facts_campaign_daily d
  using unnest(p_accounts, p_days) as t(ad_account_id, day)
  where d.ad_account_id = t.ad_account_id and d.day = t.day;
  insert into facts_campaign_daily
  select f.organization_id, f.ad_account_id, f.campaign_id, f.day,
         sum(f.impressions), sum(f.clicks), sum(f.spend), sum(f.conversions), sum(f.conversion_value),
         sum(f.video_views), sum(f.video_completions)
  from unnest(p_accounts, p_days) as t(ad_account_id, day)
  join facts f on f.ad_account_id = t.ad_account_id and f.day = t.day
  group by f.organization_id, f.ad_account_id, f.campaign_id, f.day;
$$;

-- Recomputes the campaign-month rows of the given (account, month) pairs from the creative-level monthly rollup.
create function rebuild_facts_campaign_monthly(p_accounts uuid[], p_months date[])
returns void
language sql as $$
  delete from facts_campaign_monthly m
  using unnest(p_accounts, p_months) as t(ad_account_id, month)
  where m.ad_account_id = t.ad_account_id and m.month = t.month;
  insert into facts_campaign_monthly
  select m.organization_id, m.ad_account_id, m.campaign_id, m.month,
         sum(m.impressions), sum(m.clicks), sum(m.spend), sum(m.conversions), sum(m.conversion_value),
         sum(m.video_views), sum(m.video_completions)
  from unnest(p_accounts, p_months) as t(ad_account_id, month)
  join facts_monthly m on m.ad_account_id = t.ad_account_id and m.month = t.month
  group by m.organization_id, m.ad_account_id, m.campaign_id, m.month;
$$;

create or replace function facts_monthly_after_write()
returns trigger
language plpgsql as $$
declare
  v_accounts uuid[];
  v_days date[];
  v_month_accounts uuid[];
  v_months date[];
begin
  if tg_op = 'INSERT' then
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days
    from (select distinct ad_account_id, day from new_rows) t;
  elsif tg_op = 'DELETE' then
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days
    from (select distinct ad_account_id, day from old_rows) t;
  else
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days
    from (select ad_account_id, day from new_rows union select ad_account_id, day from old_rows) t;
  end if;
  if v_accounts is not null then
    select array_agg(ad_account_id), array_agg(month) into v_month_accounts, v_months
    from (select distinct ad_account_id, date_trunc('month', day)::date as month from unnest(v_accounts, v_days) as t(ad_account_id, day)) m;
    perform rebuild_facts_monthly(v_month_accounts, v_months);
    perform rebuild_facts_campaign_monthly(v_month_accounts, v_months);
    perform rebuild_facts_campaign_daily(v_accounts, v_days);
  end if;
  return null;
end
$$;

-- Existing facts, once.
insert into facts_campaign_daily
select organization_id, ad_account_id, campaign_id, day,
       sum(impressions), sum(clicks), sum(spend), sum(conversions), sum(conversion_value), sum(video_views), sum(video_completions)
from facts
group by organization_id, ad_account_id, campaign_id, day;

insert into facts_campaign_monthly
select organization_id, ad_account_id, campaign_id, month,
       sum(impressions), sum(clicks), sum(spend), sum(conversions), sum(conversion_value), sum(video_views), sum(video_completions)
from facts_monthly
group by organization_id, ad_account_id, campaign_id, month;

-- report_facts (006, 007) without the creative: the same rows summed per campaign, read from the campaign rollups.
-- Whole months of accounts in the report's currency come from the monthly rollup (dated the 1st); the edge days, and
-- accounts needing a conversion at each day's rate, come from the daily one.
create function report_campaign_facts(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
returns table (
  ad_account_id uuid, campaign_id uuid, day date,
  impressions bigint, clicks bigint, spend double precision, conversions double precision,
  conversion_value double precision, video_views bigint, video_completions bigint)
language sql stable as $$
  with accounts as (
    select a.id, a.currency from ad_accounts a where a.id = any(p_accounts)
  ), bounds as (
    select m.first_full, greatest(date_trunc('month', p_to + 1)::date, m.first_full) as after_full
    from (select case when p_from = date_trunc('month', p_from)::date then p_from
                      else (date_trunc('month', p_from) + interval '1 month')::date end as first_full) m
  ), same as (
    select array_agg(id) as ids from accounts where currency = p_currency
  ), other as (
    select array_agg(id) as ids from accounts where currency <> p_currency
  ), factors as (
    select c.currency, d::date as day, usd_rate_on(c.currency, d::date) / usd_rate_on(p_currency, d::date) as factor
    from (select distinct currency from accounts where currency <> p_currency) c
    cross join generate_series(p_from, p_to, interval '1 day') d
  )
  select m.ad_account_id, m.campaign_id, m.month, m.impressions, m.clicks, m.spend, m.conversions,
         m.conversion_value, m.video_views, m.video_completions
  from facts_campaign_monthly m, bounds b, same s
  where m.ad_account_id = any(s.ids) and m.month >= b.first_full and m.month < b.after_full
    and (p_campaigns is null or m.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions,
         d.conversion_value, d.video_views, d.video_completions
  from facts_campaign_daily d, bounds b, same s
  where d.ad_account_id = any(s.ids) and d.day >= p_from and d.day <= p_to and d.day < b.first_full
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions,
         d.conversion_value, d.video_views, d.video_completions
  from facts_campaign_daily d, bounds b, same s
  where d.ad_account_id = any(s.ids) and d.day >= b.after_full and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks,
         d.spend * x.factor, d.conversions, d.conversion_value * x.factor, d.video_views, d.video_completions
  from facts_campaign_daily d
  join accounts a on a.id = d.ad_account_id
  join factors x on x.currency = a.currency and x.day = d.day
  , other o
  where d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
$$;
