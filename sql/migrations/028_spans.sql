-- 028: long ranges of campaigns and creatives in few rows.
--
-- Facts are also summed over spans of 4, 8, ... 256 days, each span aligned on a multiple of its length from a fixed
-- first day, per creative and per campaign, in the account's own currency and in each report currency of its
-- organization (as 019 keeps months). Any range is the union of at most two spans of each length and a few single
-- days, so an answer over a long range reads about ten rows per creative or campaign, not its months and edge days
-- (BENCHMARKS.md, "Spans"). Every write rebuilds only the spans over the days it touched, one length from the next
-- shorter: two rows a span.

create table facts_spans (
  ad_account_id uuid not null,
  level smallint not null,
  start date not null,
  currency text not null,
  creative_id uuid not null,
  campaign_id uuid not null,
  organization_id uuid not null,
  impressions bigint not null,
  clicks bigint not null,
  spend double precision,
  conversions double precision not null,
  conversion_value double precision,
  video_views bigint not null,
  video_completions bigint not null,
  primary key (ad_account_id, level, start, currency, creative_id)
);

create table facts_campaign_spans (
  ad_account_id uuid not null,
  level smallint not null,
  start date not null,
  currency text not null,
  campaign_id uuid not null,
  organization_id uuid not null,
  impressions bigint not null,
  clicks bigint not null,
  spend double precision,
  conversions double precision not null,
  conversion_value double precision,
  video_views bigint not null,
  video_completions bigint not null,
  primary key (ad_account_id, level, start, currency, campaign_id)
);

-- The first day of the span of 2^level days that holds p_day.
create function span_start(p_level integer, p_day date)
returns date
language sql immutable parallel safe as $$
  select date '2000-01-03' + (((p_day - date '2000-01-03') >> p_level) << p_level)
$$;

-- The spans a range is made of, longest first where they fit: level 0 is a single day (read from the facts).
create function span_pieces(p_from date, p_to date)
returns table(level integer, start date)
language plpgsql immutable parallel safe as $$
declare
  v_at date := p_from;
  v_level integer;
begin
  while v_at <= p_to loop
    v_level := 8;
    while v_level > 0 and (span_start(v_level, v_at) <> v_at or v_at + (1 << v_level) - 1 > p_to) loop
      v_level := v_level - 1;
    end loop;
    -- No spans of 2 days are kept (they would hold half the rows, to save a row now and then): two single days.
    if v_level = 1 then
      v_level := 0;
    end if;
    level := v_level;
    start := v_at;
    return next;
    v_at := v_at + (1 << v_level);
  end loop;
end
$$;

-- Rebuilds the spans over p_days of p_accounts (pairs), in report currency p_target (null: every one) and, when
-- p_native, in the accounts' own. A span's money is null when any of its days' money is (no rate), as in 019.
create function rebuild_spans(p_accounts uuid[], p_days date[], p_target text, p_native boolean)
returns void
language plpgsql as $$
declare
  v_accounts uuid[];
  v_starts date[];
  v_sources text[];
  v_targets text[];
begin
  for v_level in 2..8 loop
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
      -- The shortest span from the facts, its four days' rates once each (materialized: not once per fact).
      with t as materialized (
        select t.*, array(
                 select case when t.source = t.target then 1::float8 else fx_factor(t.source, t.target, t.start + d) end
                 from generate_series(0, 3) d order by d) as factors
        from unnest(v_accounts, v_starts, v_sources, v_targets) as t(ad_account_id, start, source, target)
      )
      insert into facts_spans
      select t.ad_account_id, 2, t.start, t.target, f.creative_id, f.campaign_id, f.organization_id,
             sum(f.impressions), sum(f.clicks),
             case when count(*) = count(x.factor) then sum(f.spend * x.factor) end, sum(f.conversions),
             case when count(*) = count(x.factor) then sum(f.conversion_value * x.factor) end,
             sum(f.video_views), sum(f.video_completions)
      from t
      cross join lateral (select * from facts f where f.ad_account_id = t.ad_account_id
                          and f.day >= t.start and f.day < t.start + 4 offset 0) f
      cross join lateral (select t.factors[f.day - t.start + 1] as factor) x
      group by t.ad_account_id, t.start, t.target, f.creative_id, f.campaign_id, f.organization_id;
    else
      insert into facts_spans
      select t.ad_account_id, v_level, t.start, t.target, s.creative_id, s.campaign_id, s.organization_id,
             sum(s.impressions), sum(s.clicks), case when count(*) = count(s.spend) then sum(s.spend) end,
             sum(s.conversions), case when count(*) = count(s.conversion_value) then sum(s.conversion_value) end,
             sum(s.video_views), sum(s.video_completions)
      from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
      join facts_spans s on s.ad_account_id = t.ad_account_id and s.level = v_level - 1 and s.currency = t.target
        and s.start >= t.start and s.start < t.start + (1 << v_level)
      group by t.ad_account_id, t.start, t.target, s.creative_id, s.campaign_id, s.organization_id;
    end if;
    insert into facts_campaign_spans
    select t.ad_account_id, v_level, t.start, t.target, s.campaign_id, s.organization_id,
           sum(s.impressions), sum(s.clicks), case when count(*) = count(s.spend) then sum(s.spend) end,
           sum(s.conversions), case when count(*) = count(s.conversion_value) then sum(s.conversion_value) end,
           sum(s.video_views), sum(s.video_completions)
    from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
    join facts_spans s on s.ad_account_id = t.ad_account_id and s.level = v_level and s.start = t.start
      and s.currency = t.target
    group by t.ad_account_id, t.start, t.target, s.campaign_id, s.organization_id;
  end loop;
end
$$;

-- 026's rebuild, with the spans over the same days.
create or replace function rebuild_rollups(p_accounts uuid[], p_days date[])
returns void
language plpgsql as $$
declare
  v_month_accounts uuid[];
  v_months date[];
begin
  select array_agg(ad_account_id), array_agg(month) into v_month_accounts, v_months
  from (select distinct ad_account_id, date_trunc('month', day)::date as month
        from unnest(p_accounts, p_days) as t(ad_account_id, day)) m;
  perform rebuild_facts_monthly(v_month_accounts, v_months);
  perform rebuild_facts_campaign_monthly(v_month_accounts, v_months);
  perform rebuild_facts_campaign_daily(p_accounts, p_days);
  perform lock_converted_rollups(false);
  perform rebuild_converted_rollups(v_month_accounts, v_months, null);
  perform rebuild_spans(p_accounts, p_days, null, true);
end
$$;

-- Converted spans follow the converted months (019, 026): a rate change or a new report currency rebuilds the spans
-- over every day of the months it rebuilt, in report currencies only.
create function rebuild_converted_spans(p_accounts uuid[], p_months date[], p_target text)
returns void
language sql as $$
  select rebuild_spans(array_agg(t.ad_account_id), array_agg(d::date), p_target, false)
  from unnest(p_accounts, p_months) as t(ad_account_id, month)
  cross join lateral generate_series(t.month, t.month + interval '1 month' - interval '1 day', interval '1 day') d
  having count(*) > 0;
$$;

create or replace function converted_rollups_after_rates()
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
    perform rebuild_converted_spans(v_accounts, v_months, null);
  end if;
  return null;
end
$$;

create or replace function converted_rollups_for_report()
returns trigger
language plpgsql as $$
declare
  v_accounts uuid[];
  v_months date[];
begin
  if exists (select 1 from converted_currencies where organization_id = new.organization_id and currency = new.currency) then
    return null;
  end if;
  perform lock_converted_rollups(true);
  insert into converted_currencies (organization_id, currency) values (new.organization_id, new.currency) on conflict do nothing;
  if not found then
    return null;
  end if;
  select array_agg(t.ad_account_id), array_agg(t.month) into v_accounts, v_months
  from (
    select distinct m.ad_account_id, m.month
    from facts_campaign_monthly m
    join ad_accounts a on a.id = m.ad_account_id
    where a.organization_id = new.organization_id and a.currency <> new.currency
  ) t;
  perform rebuild_converted_rollups(v_accounts, v_months, new.currency);
  perform rebuild_converted_spans(v_accounts, v_months, new.currency);
  return null;
end
$$;

-- A report's facts per creative over a range, as spans and single days: rows to be summed per creative, with the
-- same sums as report_facts gives (money in p_currency, null where a day has no rate). Accounts whose organization
-- keeps no rollups in p_currency are converted a day at a time by report_facts.
create function report_creative_spans(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
returns table(ad_account_id uuid, campaign_id uuid, creative_id uuid, impressions bigint, clicks bigint,
              spend double precision, conversions double precision, conversion_value double precision,
              video_views bigint, video_completions bigint)
language sql stable as $$
  with accounts as (
    select a.id, a.currency, a.currency = p_currency as same,
           exists (select 1 from converted_currencies r where r.organization_id = a.organization_id and r.currency = p_currency) as rolled
    from ad_accounts a where a.id = any(p_accounts)
  ), kept as (
    select array_agg(id) as ids from accounts where same or rolled
  ), pieces as materialized (
    select p.level, p.start from span_pieces(p_from, p_to) p
  ), day_factors as materialized (
    -- A single day's rate once per currency, not once per fact.
    select c.currency, p.start as day,
           case when c.currency = p_currency then 1::float8 else fx_factor(c.currency, p_currency, p.start) end as factor
    from (select distinct currency from accounts where same or rolled) c
    cross join pieces p
    where p.level = 0
  )
  select s.ad_account_id, s.campaign_id, s.creative_id, s.impressions, s.clicks, s.spend, s.conversions,
         s.conversion_value, s.video_views, s.video_completions
  from pieces p, kept k
  cross join lateral (
    select * from facts_spans s
    where s.ad_account_id = any(p_accounts) and s.level = p.level and s.start = p.start and s.currency = p_currency
      and (p_campaigns is null or s.campaign_id = any(p_campaigns))
    offset 0
  ) s
  where p.level > 0 and s.ad_account_id = any(k.ids)
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
$$;

-- The same per campaign: spans of campaigns, and single days from the campaigns' daily rollups (008, 019).
create function report_campaign_spans(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
returns table(ad_account_id uuid, campaign_id uuid, impressions bigint, clicks bigint, spend double precision,
              conversions double precision, conversion_value double precision, video_views bigint,
              video_completions bigint)
language sql stable as $$
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
    select p.level, p.start from span_pieces(p_from, p_to) p
  )
  select s.ad_account_id, s.campaign_id, s.impressions, s.clicks, s.spend, s.conversions, s.conversion_value,
         s.video_views, s.video_completions
  from pieces p, kept k
  cross join lateral (
    select * from facts_campaign_spans s
    where s.ad_account_id = any(p_accounts) and s.level = p.level and s.start = p.start and s.currency = p_currency
      and (p_campaigns is null or s.campaign_id = any(p_campaigns))
    offset 0
  ) s
  where p.level > 0 and s.ad_account_id = any(k.ids)
  union all
  select d.ad_account_id, d.campaign_id, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value,
         d.video_views, d.video_completions
  from pieces p, same o
  cross join lateral (
    select * from facts_campaign_daily d
    where d.ad_account_id = any(p_accounts) and d.day = p.start and (p_campaigns is null or d.campaign_id = any(p_campaigns))
    offset 0
  ) d
  where p.level = 0 and d.ad_account_id = any(o.ids)
  union all
  select d.ad_account_id, d.campaign_id, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value,
         d.video_views, d.video_completions
  from pieces p, rolled o
  cross join lateral (
    select * from facts_campaign_daily_converted d
    where d.currency = p_currency and d.ad_account_id = any(p_accounts) and d.day = p.start
      and (p_campaigns is null or d.campaign_id = any(p_campaigns))
    offset 0
  ) d
  where p.level = 0 and d.ad_account_id = any(o.ids)
  union all
  select f.ad_account_id, f.campaign_id, f.impressions, f.clicks, f.spend, f.conversions, f.conversion_value,
         f.video_views, f.video_completions
  from report_campaign_facts(array(select id from accounts where not same and not rolled), p_campaigns, p_from, p_to,
                             p_currency) f
  where exists (select 1 from accounts where not same and not rolled)
$$;

-- The facts already loaded, in spans.
select rebuild_spans(array_agg(ad_account_id), array_agg(day), null, true)
from (select distinct ad_account_id, day from facts) f
having count(*) > 0;
