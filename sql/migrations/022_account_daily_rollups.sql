-- 022: rollups per ad account and day, for the groupings that never look below the account (total, ad-account) a day
-- or a week at a time: from the campaign-day rollups such an answer sums a row per campaign and day, from these a row
-- per account and day (BENCHMARKS.md). Each is the sum of the campaign-day rollup it stands beside (008, 019), kept so
-- by triggers on that rollup, whoever rebuilds it.

create table facts_account_daily (
  organization_id uuid not null,
  ad_account_id uuid not null,
  day date not null,
  impressions bigint not null,
  clicks bigint not null,
  spend double precision not null,
  conversions double precision not null,
  conversion_value double precision not null,
  video_views bigint not null,
  video_completions bigint not null,
  primary key (ad_account_id, day)
);

-- Money null when a campaign-day of the account's day is: never a partial sum.
create table facts_account_daily_converted (
  currency text not null,
  organization_id uuid not null,
  ad_account_id uuid not null,
  day date not null,
  impressions bigint not null,
  clicks bigint not null,
  spend double precision,
  conversions double precision not null,
  conversion_value double precision,
  video_views bigint not null,
  video_completions bigint not null,
  primary key (currency, ad_account_id, day)
);

-- Recomputes the account-days of the given (account, day) pairs from facts_campaign_daily.
create function rebuild_facts_account_daily(p_accounts uuid[], p_days date[])
returns void
language sql as $$
  delete from facts_account_daily d
  using unnest(p_accounts, p_days) as t(ad_account_id, day)
  where d.ad_account_id = t.ad_account_id and d.day = t.day;
  insert into facts_account_daily
  select c.organization_id, c.ad_account_id, c.day, sum(c.impressions), sum(c.clicks), sum(c.spend), sum(c.conversions),
         sum(c.conversion_value), sum(c.video_views), sum(c.video_completions)
  from (select distinct * from unnest(p_accounts, p_days) as t(ad_account_id, day)) t
  join facts_campaign_daily c on c.ad_account_id = t.ad_account_id and c.day = t.day
  group by c.organization_id, c.ad_account_id, c.day;
$$;

-- Recomputes the converted account-days of the given (currency, account, day) triples from
-- facts_campaign_daily_converted.
create function rebuild_facts_account_daily_converted(p_currencies text[], p_accounts uuid[], p_days date[])
returns void
language sql as $$
  delete from facts_account_daily_converted d
  using unnest(p_currencies, p_accounts, p_days) as t(currency, ad_account_id, day)
  where d.currency = t.currency and d.ad_account_id = t.ad_account_id and d.day = t.day;
  insert into facts_account_daily_converted
  select c.currency, c.organization_id, c.ad_account_id, c.day, sum(c.impressions), sum(c.clicks),
         case when count(*) = count(c.spend) then sum(c.spend) end, sum(c.conversions),
         case when count(*) = count(c.conversion_value) then sum(c.conversion_value) end,
         sum(c.video_views), sum(c.video_completions)
  from (select distinct * from unnest(p_currencies, p_accounts, p_days) as t(currency, ad_account_id, day)) t
  join facts_campaign_daily_converted c on c.currency = t.currency and c.ad_account_id = t.ad_account_id and c.day = t.day
  group by c.currency, c.organization_id, c.ad_account_id, c.day;
$$;

create function facts_account_daily_after_write()
returns trigger
language plpgsql as $$
declare
  v_accounts uuid[];
  v_days date[];
begin
  if tg_op = 'DELETE' then
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days from (select distinct ad_account_id, day from old_rows) t;
  elsif tg_op = 'INSERT' then
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days from (select distinct ad_account_id, day from new_rows) t;
  else
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days
    from (select ad_account_id, day from new_rows union select ad_account_id, day from old_rows) t;
  end if;
  if v_accounts is not null then
    perform rebuild_facts_account_daily(v_accounts, v_days);
  end if;
  return null;
end
$$;

create function facts_account_daily_converted_after_write()
returns trigger
language plpgsql as $$
declare
  v_currencies text[];
  v_accounts uuid[];
  v_days date[];
begin
  if tg_op = 'DELETE' then
    select array_agg(currency), array_agg(ad_account_id), array_agg(day) into v_currencies, v_accounts, v_days
    from (select distinct currency, ad_account_id, day from old_rows) t;
  elsif tg_op = 'INSERT' then
    select array_agg(currency), array_agg(ad_account_id), array_agg(day) into v_currencies, v_accounts, v_days
    from (select distinct currency, ad_account_id, day from new_rows) t;
  else
    select array_agg(currency), array_agg(ad_account_id), array_agg(day) into v_currencies, v_accounts, v_days
    from (select currency, ad_account_id, day from new_rows union select currency, ad_account_id, day from old_rows) t;
  end if;
  if v_accounts is not null then
    perform rebuild_facts_account_daily_converted(v_currencies, v_accounts, v_days);
  end if;
  return null;
end
$$;

do $$
declare
  t text;
begin
  foreach t in array array['facts_campaign_daily', 'facts_campaign_daily_converted'] loop
    execute format('create trigger %I after insert on %I referencing new table as new_rows
                    for each statement execute function %I()', t || '_accounts_insert', t, replace(t, 'campaign', 'account') || '_after_write');
    execute format('create trigger %I after update on %I referencing old table as old_rows new table as new_rows
                    for each statement execute function %I()', t || '_accounts_update', t, replace(t, 'campaign', 'account') || '_after_write');
    execute format('create trigger %I after delete on %I referencing old table as old_rows
                    for each statement execute function %I()', t || '_accounts_delete', t, replace(t, 'campaign', 'account') || '_after_write');
  end loop;
end
$$;

insert into facts_account_daily
select organization_id, ad_account_id, day, sum(impressions), sum(clicks), sum(spend), sum(conversions), sum(conversion_value),
       sum(video_views), sum(video_completions)
from facts_campaign_daily
group by organization_id, ad_account_id, day;
insert into facts_account_daily_converted
select currency, organization_id, ad_account_id, day, sum(impressions), sum(clicks),
       case when count(*) = count(spend) then sum(spend) end, sum(conversions),
       case when count(*) = count(conversion_value) then sum(conversion_value) end, sum(video_views), sum(video_completions)
from facts_campaign_daily_converted
group by currency, organization_id, ad_account_id, day;
analyze facts_account_daily, facts_account_daily_converted;

-- report_campaign_days (021) per account: every day of every account from the account-day rollups, native or
-- converted, or converted as read for accounts without converted rollups. No campaign filter: a segment report reads
-- its campaigns' days (report_account_periods).
create function report_account_days(p_accounts uuid[], p_from date, p_to date, p_currency text)
returns table (
  ad_account_id uuid, day date,
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
  select d.ad_account_id, d.day, d.impressions, d.clicks, d.spend * x.factor, d.conversions, d.conversion_value * x.factor,
         d.video_views, d.video_completions
  from facts_account_daily d
  join accounts a on a.id = d.ad_account_id
  join factors x on x.currency = a.currency and x.day = d.day
  , daily o
  -- Uncorrelated, so PostgreSQL skips the branch when every account has its rollup (a one-time filter).
  where exists (select 1 from accounts where not same and not rolled) and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
$$;

-- report_campaign_periods (021) per account: days and weeks from the account-day rollups, unless campaigns are
-- named (segment reports), which read their campaigns'; months as report_campaign_periods reads them.
create function report_account_periods(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text,
                                       p_interval text, p_since timestamptz)
returns table (
  ad_account_id uuid, period date,
  impressions bigint, clicks bigint, spend double precision, conversions double precision,
  conversion_value double precision, video_views bigint, video_completions bigint)
language sql stable as $$
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
$$;
