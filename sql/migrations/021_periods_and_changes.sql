-- 021: rows per day, week or month (docs/decisions.md §6, `interval`), and what changed since a client's last pull
-- (`changedSince`). Every write of facts, and of the rates their money is converted at, stamps the (ad account, day)
-- pairs whose numbers it changed; a pull asks for the periods holding a pair stamped after its instant, and each
-- answer names the instant to resume from.

-- When each ad account's day last had its facts written with other numbers (inserted, changed or removed), or the
-- rate its money is converted at changed.
create table fact_writes (
  ad_account_id uuid not null references ad_accounts (id) on delete cascade,
  day date not null,
  written_at timestamptz not null,
  primary key (ad_account_id, day)
);

-- How many writing statements changed each ad account's facts: part of a data answer's ETag, so an answer is never
-- 304 after its numbers changed, whether or not the account's last fetch moved.
create table fact_account_writes (
  ad_account_id uuid primary key references ad_accounts (id) on delete cascade,
  writes bigint not null
);

-- Facts already loaded count as written at this migration: a pull resumed from before it gets them all again.
insert into fact_writes (ad_account_id, day, written_at) select distinct ad_account_id, day, now() from facts;
insert into fact_account_writes (ad_account_id, writes) select distinct ad_account_id, 1 from facts;

-- The instant a transaction's fact writes are stamped with, the same for all of them. A resume point (query
-- facts-resume-point.sql) must not pass a write that has not committed yet: so before its first stamp, a writer holds
-- a shared advisory lock until it ends, whose key is 1831 in its top bits and, below them, the microseconds since 2020
-- of a clock read before taking it; it stamps with a clock read after. A reader takes the earlier of its own start
-- and the oldest such lock held: a write it cannot see is either held then, and stamped after that lock's instant,
-- or locked after, and stamped after the reader started.
create function facts_write_stamp()
returns timestamptz
language plpgsql as $$
declare
  v_stamp text := current_setting('readout.facts_written_at', true);
  v_locked timestamptz;
begin
  if v_stamp is not null and v_stamp <> '' then
    return v_stamp::timestamptz;
  end if;
  v_locked := clock_timestamp();
  perform pg_advisory_xact_lock_shared((1831::bigint << 50) | floor(extract(epoch from v_locked - timestamptz '2020-01-01 00:00:00+00') * 1000000)::bigint);
  v_stamp := clock_timestamp()::text;
  perform set_config('readout.facts_written_at', v_stamp, true);
  return v_stamp::timestamptz;
end
$$;

-- Stamps the pairs of p_accounts and p_days, and counts a write for each of their accounts.
create function stamp_fact_writes(p_accounts uuid[], p_days date[])
returns void
language plpgsql as $$
declare
  v_stamp timestamptz;
begin
  if p_accounts is null then
    return;
  end if;
  v_stamp := facts_write_stamp();
  insert into fact_writes as w (ad_account_id, day, written_at)
  select distinct t.ad_account_id, t.day, v_stamp from unnest(p_accounts, p_days) as t(ad_account_id, day)
  order by 1, 2
  on conflict (ad_account_id, day) do update set written_at = greatest(w.written_at, excluded.written_at);
  insert into fact_account_writes as a (ad_account_id, writes)
  select distinct t.ad_account_id, 1 from unnest(p_accounts) as t(ad_account_id)
  order by 1
  on conflict (ad_account_id) do update set writes = a.writes + 1;
end
$$;

-- A statement's inserted and removed facts stamp their days; an update stamps only the rows it changed, so a day
-- loaded again with the same numbers is not reported as changed.
create function fact_writes_after_write()
returns trigger
language plpgsql as $$
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
  else
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days
    from (
      select ad_account_id, day from (select * from new_rows except select * from old_rows) n
      union
      select ad_account_id, day from (select * from old_rows except select * from new_rows) o
    ) t;
  end if;
  perform stamp_fact_writes(v_accounts, v_days);
  return null;
end
$$;

create trigger fact_writes_insert after insert on facts
  referencing new table as new_rows for each statement execute function fact_writes_after_write();
create trigger fact_writes_update after update on facts
  referencing old table as old_rows new table as new_rows for each statement execute function fact_writes_after_write();
create trigger fact_writes_delete after delete on facts
  referencing old table as old_rows for each statement execute function fact_writes_after_write();

-- A rate written, replaced or removed changes the money of the days converted at it: from its day up to the next rate
-- of its currency that did not change (as migration 019 rebuilds them), for accounts in that currency and accounts
-- converted into it. Those days with facts are stamped as written; a rate written again unchanged stamps nothing.
create function fact_writes_after_rates()
returns trigger
language plpgsql as $$
declare
  v_currencies text[];
  v_days date[];
  v_accounts uuid[];
  v_stamped date[];
begin
  if tg_op = 'INSERT' then
    select array_agg(currency), array_agg(day) into v_currencies, v_days from new_rows;
  elsif tg_op = 'DELETE' then
    select array_agg(currency), array_agg(day) into v_currencies, v_days from old_rows;
  else
    select array_agg(currency), array_agg(day) into v_currencies, v_days
    from (
      select currency, day from (select currency, day, usd_per_unit from new_rows except select currency, day, usd_per_unit from old_rows) n
      union
      select currency, day from (select currency, day, usd_per_unit from old_rows except select currency, day, usd_per_unit from new_rows) o
    ) t;
  end if;
  if v_currencies is null then
    return null;
  end if;
  with changed as (
    select t.currency, min(t.day) as first, max(t.day) as last
    from unnest(v_currencies, v_days) as t(currency, day)
    group by t.currency
  ), spans as (
    select c.currency, c.first, (select min(r.day) from fx_rates r where r.currency = c.currency and r.day > c.last) as until
    from changed c
  )
  select array_agg(w.ad_account_id), array_agg(w.day) into v_accounts, v_stamped
  from spans s
  join ad_accounts a on a.currency = s.currency
    or exists (select 1 from converted_currencies r where r.organization_id = a.organization_id and r.currency = s.currency)
  join fact_writes w on w.ad_account_id = a.id and w.day >= s.first and (s.until is null or w.day < s.until);
  perform stamp_fact_writes(v_accounts, v_stamped);
  return null;
end
$$;

create trigger fact_writes_rates_insert after insert on fx_rates
  referencing new table as new_rows for each statement execute function fact_writes_after_rates();
create trigger fact_writes_rates_update after update on fx_rates
  referencing old table as old_rows new table as new_rows for each statement execute function fact_writes_after_rates();
create trigger fact_writes_rates_delete after delete on fx_rates
  referencing old table as old_rows for each statement execute function fact_writes_after_rates();

-- report_campaign_facts (019) a day at a time: every day from the daily rollups, native or converted, or converted
-- as read for accounts without converted rollups.
create function report_campaign_days(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
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
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions,
         d.conversion_value, d.video_views, d.video_completions
  from facts_campaign_daily d, same s
  where d.ad_account_id = any(s.ids) and d.day >= p_from and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions,
         d.conversion_value, d.video_views, d.video_completions
  from facts_campaign_daily_converted d, rolled o
  where d.currency = p_currency and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks,
         d.spend * x.factor, d.conversions, d.conversion_value * x.factor, d.video_views, d.video_completions
  from facts_campaign_daily d
  join accounts a on a.id = d.ad_account_id
  join factors x on x.currency = a.currency and x.day = d.day
  , daily o
  -- Uncorrelated, so PostgreSQL skips the branch when every account has its rollup (a one-time filter).
  where exists (select 1 from accounts where not same and not rolled) and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
$$;

-- report_facts (019) a day at a time: the facts themselves, money in another currency converted at each day's rate.
create function report_creative_days(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
returns table (
  ad_account_id uuid, campaign_id uuid, creative_id uuid, day date,
  impressions bigint, clicks bigint, spend double precision, conversions double precision,
  conversion_value double precision, video_views bigint, video_completions bigint)
language sql stable as $$
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
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks,
         f.spend * x.factor, f.conversions, f.conversion_value * x.factor, f.video_views, f.video_completions
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  , other o
  where exists (select 1 from accounts where not same) and f.ad_account_id = any(o.ids) and f.day >= p_from and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
$$;

-- The first day of the period of p_interval ('day', 'week': the ISO week's Monday, or 'month') that holds p_day.
create function period_start(p_interval text, p_day date)
returns date
language sql immutable as $$
  select date_trunc(p_interval, p_day::timestamp)::date
$$;

-- The periods of p_interval within [p_from, p_to] in which a fact of the given accounts was written after p_since.
create function changed_periods(p_accounts uuid[], p_from date, p_to date, p_interval text, p_since timestamptz)
returns table (period date)
language sql stable as $$
  select distinct period_start(p_interval, w.day)
  from fact_writes w
  where w.ad_account_id = any(p_accounts) and w.day >= p_from and w.day <= p_to and w.written_at > p_since
$$;

-- Campaign rows with the period of p_interval each falls in; only the periods changed after p_since, unless it is
-- null. Whole months come from the monthly rollups (report_campaign_facts), shorter periods from the daily ones.
create function report_campaign_periods(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text,
                                        p_interval text, p_since timestamptz)
returns table (
  ad_account_id uuid, campaign_id uuid, period date,
  impressions bigint, clicks bigint, spend double precision, conversions double precision,
  conversion_value double precision, video_views bigint, video_completions bigint)
language sql stable as $$
  select f.ad_account_id, f.campaign_id, period_start('month', f.day), f.impressions, f.clicks, f.spend, f.conversions,
         f.conversion_value, f.video_views, f.video_completions
  from report_campaign_facts(p_accounts, p_campaigns, p_from, p_to, p_currency) f
  where p_interval = 'month'
    and (p_since is null or period_start('month', f.day) in (select c.period from changed_periods(p_accounts, p_from, p_to, 'month', p_since) c))
  union all
  select f.ad_account_id, f.campaign_id, period_start(p_interval, f.day), f.impressions, f.clicks, f.spend, f.conversions,
         f.conversion_value, f.video_views, f.video_completions
  from report_campaign_days(p_accounts, p_campaigns, p_from, p_to, p_currency) f
  where p_interval <> 'month'
    and (p_since is null or period_start(p_interval, f.day) in (select c.period from changed_periods(p_accounts, p_from, p_to, p_interval, p_since) c))
$$;

-- report_campaign_periods per creative: whole months from report_facts, shorter periods from the facts themselves.
create function report_creative_periods(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text,
                                        p_interval text, p_since timestamptz)
returns table (
  ad_account_id uuid, campaign_id uuid, creative_id uuid, period date,
  impressions bigint, clicks bigint, spend double precision, conversions double precision,
  conversion_value double precision, video_views bigint, video_completions bigint)
language sql stable as $$
  select f.ad_account_id, f.campaign_id, f.creative_id, period_start('month', f.day), f.impressions, f.clicks, f.spend,
         f.conversions, f.conversion_value, f.video_views, f.video_completions
  from report_facts(p_accounts, p_campaigns, p_from, p_to, p_currency) f
  where p_interval = 'month'
    and (p_since is null or period_start('month', f.day) in (select c.period from changed_periods(p_accounts, p_from, p_to, 'month', p_since) c))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, period_start(p_interval, f.day), f.impressions, f.clicks, f.spend,
         f.conversions, f.conversion_value, f.video_views, f.video_completions
  from report_creative_days(p_accounts, p_campaigns, p_from, p_to, p_currency) f
  where p_interval <> 'month'
    and (p_since is null or period_start(p_interval, f.day) in (select c.period from changed_periods(p_accounts, p_from, p_to, p_interval, p_since) c))
$$;

analyze fact_writes, fact_account_writes;
