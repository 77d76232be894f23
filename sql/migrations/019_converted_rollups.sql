-- 019: money in another currency read at rollup speed (docs/decisions.md §5, §11). Each organization's report
-- currencies keep monthly rollups of their own, converted at each day's rate, so whole months are read as for a report
-- in the accounts' currency (BENCHMARKS.md); only the days at the range's edges are converted as they are read.
-- Triggers on facts, rates and reports keep them exact; a read that finds no converted rollup for its currency converts
-- every day, never a wrong sum.

-- Units of p_target one unit of p_source buys on p_day: the day's rate, else the latest earlier one, cross rates
-- through USD; null when either currency has no rate on or before the day.
create function fx_factor(p_source text, p_target text, p_day date)
returns double precision
language sql stable as $$
  select case when p_source = p_target then 1.0::double precision else usd_rate_on(p_source, p_day) / usd_rate_on(p_target, p_day) end
$$;

-- The currencies an organization's reports are in: each has converted rollups of every account in another currency.
create table converted_currencies (
  organization_id uuid not null references organizations (id) on delete cascade,
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  primary key (organization_id, currency)
);

-- facts_monthly with its money in `currency`, for accounts in another one. Money is null when a day of the month has
-- no rate to convert at: every row that holds it is null then, never a partial sum.
create table facts_monthly_converted (
  currency text not null,
  organization_id uuid not null,
  ad_account_id uuid not null,
  campaign_id uuid not null,
  creative_id uuid not null,
  month date not null,
  impressions bigint not null,
  clicks bigint not null,
  spend double precision,
  conversions double precision not null,
  conversion_value double precision,
  video_views bigint not null,
  video_completions bigint not null,
  primary key (currency, ad_account_id, month, creative_id)
);

-- facts_campaign_monthly likewise.
create table facts_campaign_monthly_converted (
  currency text not null,
  organization_id uuid not null,
  ad_account_id uuid not null,
  campaign_id uuid not null,
  month date not null,
  impressions bigint not null,
  clicks bigint not null,
  spend double precision,
  conversions double precision not null,
  conversion_value double precision,
  video_views bigint not null,
  video_completions bigint not null,
  primary key (currency, ad_account_id, month, campaign_id)
);

-- facts_campaign_daily likewise: the days at a range's edges, read as a report in the accounts' currency reads them.
create table facts_campaign_daily_converted (
  currency text not null,
  organization_id uuid not null,
  ad_account_id uuid not null,
  campaign_id uuid not null,
  day date not null,
  impressions bigint not null,
  clicks bigint not null,
  spend double precision,
  conversions double precision not null,
  conversion_value double precision,
  video_views bigint not null,
  video_completions bigint not null,
  primary key (currency, ad_account_id, day, campaign_id)
);

-- Recomputes the converted rollups of the given (account, month) pairs from facts, into p_target (null: every
-- currency the account's organization has reports in, other than the account's own).
create function rebuild_converted_rollups(p_accounts uuid[], p_months date[], p_target text)
returns void
language sql as $$
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
    select p.source, p.target, d::date as day, fx_factor(p.source, p.target, d::date) as factor
    from (select distinct source, target, month from pairs) p
    cross join lateral generate_series(p.month, p.month + interval '1 month' - interval '1 day', interval '1 day') d
  ), creatives as (
    insert into facts_monthly_converted
    select p.target, f.organization_id, f.ad_account_id, f.campaign_id, f.creative_id, p.month,
           sum(f.impressions), sum(f.clicks),
           case when count(*) = count(x.factor) then sum(f.spend * x.factor) end, sum(f.conversions),
           case when count(*) = count(x.factor) then sum(f.conversion_value * x.factor) end,
           sum(f.video_views), sum(f.video_completions)
    from pairs p
    join facts f on f.ad_account_id = p.ad_account_id and f.day >= p.month and f.day < (p.month + interval '1 month')::date
    join factors x on x.source = p.source and x.target = p.target and x.day = f.day
    group by p.target, f.organization_id, f.ad_account_id, f.campaign_id, f.creative_id, p.month
    returning *
  ), days as (
    insert into facts_campaign_daily_converted
    select p.target, d.organization_id, d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks,
           d.spend * x.factor, d.conversions, d.conversion_value * x.factor, d.video_views, d.video_completions
    from pairs p
    join facts_campaign_daily d on d.ad_account_id = p.ad_account_id and d.day >= p.month and d.day < (p.month + interval '1 month')::date
    join factors x on x.source = p.source and x.target = p.target and x.day = d.day
  )
  insert into facts_campaign_monthly_converted
  select c.currency, c.organization_id, c.ad_account_id, c.campaign_id, c.month,
         sum(c.impressions), sum(c.clicks), case when count(*) = count(c.spend) then sum(c.spend) end, sum(c.conversions),
         case when count(*) = count(c.conversion_value) then sum(c.conversion_value) end,
         sum(c.video_views), sum(c.video_completions)
  from creatives c
  group by c.currency, c.organization_id, c.ad_account_id, c.campaign_id, c.month;
$$;

-- Writers of facts (shared) and of rates or report currencies (exclusive) take this lock before they read what the
-- others write: a rate import committing while facts are imported would otherwise leave a month converted at the old
-- rate. Each statement after the lock sees what committed before it (READ COMMITTED).
create function lock_converted_rollups(p_exclusive boolean)
returns void
language sql as $$
  select case when p_exclusive then pg_advisory_xact_lock(727019) else pg_advisory_xact_lock_shared(727019) end
$$;

-- 008's trigger, and the converted rollups of the same (account, month) pairs.
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
    perform lock_converted_rollups(false);
    perform rebuild_converted_rollups(v_month_accounts, v_months, null);
  end if;
  return null;
end
$$;

-- A rate written, replaced or removed changes the conversion of its currency from that day up to the next rate of the
-- currency that did not change: the months in between are rebuilt, for accounts in that currency and for accounts
-- converted into it.
create function converted_rollups_after_rates()
returns trigger
language plpgsql as $$
declare
  v_currencies text[];
  v_days date[];
  v_accounts uuid[];
  v_months date[];
begin
  if tg_op = 'INSERT' then
    select array_agg(currency), array_agg(day) into v_currencies, v_days from new_rows;
  elsif tg_op = 'DELETE' then
    select array_agg(currency), array_agg(day) into v_currencies, v_days from old_rows;
  else
    select array_agg(currency), array_agg(day) into v_currencies, v_days
    from (select currency, day from new_rows union all select currency, day from old_rows) t;
  end if;
  if v_currencies is null then
    return null;
  end if;
  perform lock_converted_rollups(true);
  with changed as (
    select t.currency, min(t.day) as first, max(t.day) as last
    from unnest(v_currencies, v_days) as t(currency, day)
    group by t.currency
  ), spans as (
    select c.currency, date_trunc('month', c.first)::date as first_month,
           (select min(r.day) from fx_rates r where r.currency = c.currency and r.day > c.last) as until
    from changed c
  )
  select array_agg(ad_account_id), array_agg(month) into v_accounts, v_months
  from (
    select distinct m.ad_account_id, m.month
    from spans s
    join ad_accounts a on a.currency = s.currency
      or exists (select 1 from converted_currencies r where r.organization_id = a.organization_id and r.currency = s.currency)
    join facts_campaign_monthly m on m.ad_account_id = a.id and m.month >= s.first_month and (s.until is null or m.month < s.until)
  ) t;
  if v_accounts is not null then
    perform rebuild_converted_rollups(v_accounts, v_months, null);
  end if;
  return null;
end
$$;

create trigger converted_rollups_rates_insert after insert on fx_rates
  referencing new table as new_rows for each statement execute function converted_rollups_after_rates();
create trigger converted_rollups_rates_update after update on fx_rates
  referencing old table as old_rows new table as new_rows for each statement execute function converted_rollups_after_rates();
create trigger converted_rollups_rates_delete after delete on fx_rates
  referencing old table as old_rows for each statement execute function converted_rollups_after_rates();

-- A report in a currency its organization had no report in yet: that currency's rollups are built, in the same
-- transaction, so a report is never read before they exist.
create function converted_rollups_for_report()
returns trigger
language plpgsql as $$
begin
  if exists (select 1 from converted_currencies where organization_id = new.organization_id and currency = new.currency) then
    return null;
  end if;
  perform lock_converted_rollups(true);
  insert into converted_currencies (organization_id, currency) values (new.organization_id, new.currency) on conflict do nothing;
  if not found then
    return null;
  end if;
  perform rebuild_converted_rollups(array_agg(t.ad_account_id), array_agg(t.month), new.currency)
  from (
    select distinct m.ad_account_id, m.month
    from facts_campaign_monthly m
    join ad_accounts a on a.id = m.ad_account_id
    where a.organization_id = new.organization_id and a.currency <> new.currency
  ) t;
  return null;
end
$$;

create trigger converted_rollups_report_currency after insert or update of currency on reports
  for each row execute function converted_rollups_for_report();

-- Every organization's report currencies as they stand, once.
insert into converted_currencies (organization_id, currency) select distinct organization_id, currency from reports;
select rebuild_converted_rollups(array_agg(ad_account_id), array_agg(month), null)
from (select distinct ad_account_id, month from facts_campaign_monthly) t;
-- With their statistics: planned as empty tables, the first reads would take the wrong plans.
analyze converted_currencies, facts_monthly_converted, facts_campaign_monthly_converted, facts_campaign_daily_converted;

-- report_campaign_facts (008) with a third source: accounts in another currency are read from the converted
-- rollups (whole months from the monthly one, the range's edge days from the daily one) when their organization has
-- them for the report's currency, as accounts in its currency are read from the native ones. Accounts without them are
-- converted at each day's rate from the daily rollup; those factors are worked out once (materialized), not again for
-- every row joined to them.
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
  ), bounds as (
    select m.first_full, greatest(date_trunc('month', p_to + 1)::date, m.first_full) as after_full
    from (select case when p_from = date_trunc('month', p_from)::date then p_from
                      else (date_trunc('month', p_from) + interval '1 month')::date end as first_full) m
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
  select m.ad_account_id, m.campaign_id, m.month, m.impressions, m.clicks, m.spend, m.conversions,
         m.conversion_value, m.video_views, m.video_completions
  from facts_campaign_monthly_converted m, bounds b, rolled o
  where m.currency = p_currency and m.ad_account_id = any(o.ids) and m.month >= b.first_full and m.month < b.after_full
    and (p_campaigns is null or m.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions,
         d.conversion_value, d.video_views, d.video_completions
  from facts_campaign_daily_converted d, bounds b, rolled o
  where d.currency = p_currency and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to and d.day < b.first_full
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions,
         d.conversion_value, d.video_views, d.video_completions
  from facts_campaign_daily_converted d, bounds b, rolled o
  where d.currency = p_currency and d.ad_account_id = any(o.ids) and d.day >= b.after_full and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks,
         d.spend * x.factor, d.conversions, d.conversion_value * x.factor, d.video_views, d.video_completions
  from facts_campaign_daily d
  join accounts a on a.id = d.ad_account_id
  join factors x on x.currency = a.currency and x.day = d.day
  , bounds b, daily o
  -- Uncorrelated, so PostgreSQL skips the branch when every account has its rollup (a one-time filter).
  where exists (select 1 from accounts where not same and not rolled) and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
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
  ), bounds as (
    select m.first_full, greatest(date_trunc('month', p_to + 1)::date, m.first_full) as after_full
    from (select case when p_from = date_trunc('month', p_from)::date then p_from
                      else (date_trunc('month', p_from) + interval '1 month')::date end as first_full) m
  ), same as (
    select array_agg(id) as ids from accounts where same
  ), rolled as (
    select array_agg(id) as ids from accounts where not same and rolled
  ), daily as (
    select array_agg(id) as ids from accounts where not same and not rolled
  ), factors as materialized (
    select c.currency, d::date as day, fx_factor(c.currency, p_currency, d::date) as factor
    from (select distinct currency from accounts where not same) c
    cross join bounds b
    cross join generate_series(p_from, p_to, interval '1 day') d
    where d < b.first_full or d >= b.after_full or exists (select 1 from accounts where not same and not rolled)
  )
  select m.ad_account_id, m.campaign_id, m.creative_id, m.month, m.impressions, m.clicks, m.spend, m.conversions,
         m.conversion_value, m.video_views, m.video_completions
  from facts_monthly m, bounds b, same s
  where m.ad_account_id = any(s.ids) and m.month >= b.first_full and m.month < b.after_full
    and (p_campaigns is null or m.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks, f.spend, f.conversions,
         f.conversion_value, f.video_views, f.video_completions
  from facts f, bounds b, same s
  where f.ad_account_id = any(s.ids) and f.day >= p_from and f.day <= p_to and f.day < b.first_full
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks, f.spend, f.conversions,
         f.conversion_value, f.video_views, f.video_completions
  from facts f, bounds b, same s
  where f.ad_account_id = any(s.ids) and f.day >= b.after_full and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select m.ad_account_id, m.campaign_id, m.creative_id, m.month, m.impressions, m.clicks, m.spend, m.conversions,
         m.conversion_value, m.video_views, m.video_completions
  from facts_monthly_converted m, bounds b, rolled o
  where m.currency = p_currency and m.ad_account_id = any(o.ids) and m.month >= b.first_full and m.month < b.after_full
    and (p_campaigns is null or m.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks,
         f.spend * x.factor, f.conversions, f.conversion_value * x.factor, f.video_views, f.video_completions
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  , bounds b, rolled o
  where f.ad_account_id = any(o.ids) and f.day >= p_from and f.day <= p_to and f.day < b.first_full
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks,
         f.spend * x.factor, f.conversions, f.conversion_value * x.factor, f.video_views, f.video_completions
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  , bounds b, rolled o
  where f.ad_account_id = any(o.ids) and f.day >= b.after_full and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks,
         f.spend * x.factor, f.conversions, f.conversion_value * x.factor, f.video_views, f.video_completions
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  , bounds b, daily o
  -- Uncorrelated, so PostgreSQL skips the branch when every account has its rollup (a one-time filter).
  where exists (select 1 from accounts where not same and not rolled) and f.ad_account_id = any(o.ids) and f.day >= p_from and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
$$;

-- Deleting an organization (018) takes its converted rollups too.
create or replace function delete_organization(p_org uuid) returns table (clients integer, fact_rows bigint)
language plpgsql as $$
declare
  v_clients integer;
  v_facts bigint;
begin
  insert into deleted_clients (id) select id from api_clients where organization_id = p_org on conflict do nothing;
  select count(*) into v_clients from api_clients where organization_id = p_org;
  delete from facts where organization_id = p_org;
  get diagnostics v_facts = row_count;
  delete from facts_monthly where organization_id = p_org;
  delete from facts_campaign_daily where organization_id = p_org;
  delete from facts_campaign_monthly where organization_id = p_org;
  delete from facts_monthly_converted where organization_id = p_org;
  delete from facts_campaign_monthly_converted where organization_id = p_org;
  delete from converted_currencies where organization_id = p_org;
  delete from report_segments where organization_id = p_org;
  delete from report_ad_accounts where organization_id = p_org;
  delete from segment_campaigns where organization_id = p_org;
  delete from reports where organization_id = p_org;
  delete from segments where organization_id = p_org;
  delete from custom_metrics where organization_id = p_org;
  delete from creatives where organization_id = p_org;
  delete from campaigns where organization_id = p_org;
  delete from ad_accounts where organization_id = p_org;
  delete from quota_client_usage where organization_id = p_org;
  delete from quota_windows where organization_id = p_org;
  delete from client_secrets where organization_id = p_org;
  delete from api_clients where organization_id = p_org;
  delete from subscriptions where organization_id = p_org;
  delete from organizations where id = p_org;
  return query select v_clients, v_facts;
end
$$;
