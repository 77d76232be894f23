-- 039: a month's creatives summed from their spans, not from its facts: a day loaded at a month's end would read the
-- whole month of every creative of its accounts again (thirty facts a creative). A month is a few spans of 4 to 16
-- days and a day or two at its ends (span_pieces, 036), so the spans are rebuilt first, then each month from them:
-- native from the account's currency's spans, converted from the report currency's, whose money is null where any of
-- its days had no rate, as the month's is (BENCHMARKS.md, "Loading facts"). Sums in another order, the same to the
-- last bit or two.

-- A month of an account's creatives in a currency, a row a piece: its spans of 4 to 16 days in that currency, and the
-- facts of its single days converted from the account's (a factor of 1 in its own; money null where no rate is known).
create function month_pieces(p_account uuid, p_month date, p_source text, p_target text)
returns table(organization_id uuid, campaign_id uuid, creative_id uuid, impressions bigint, clicks bigint,
              spend double precision, conversions double precision, conversion_value double precision,
              video_views bigint, video_completions bigint)
language sql stable as $$
  select s.organization_id, s.campaign_id, s.creative_id, s.impressions, s.clicks, s.spend, s.conversions,
         s.conversion_value, s.video_views, s.video_completions
  from span_pieces(p_month, (p_month + interval '1 month')::date - 1) p
  cross join lateral (
    select s.organization_id, s.campaign_id, s.creative_id, s.impressions, s.clicks, s.spend, s.conversions,
           s.conversion_value, s.video_views, s.video_completions
    from facts_spans s
    where p.level > 0 and s.ad_account_id = p_account and s.level = p.level and s.start = p.start
      and s.currency = p_target
    union all
    select f.organization_id, f.campaign_id, f.creative_id, f.impressions, f.clicks, f.spend * x.factor, f.conversions,
           f.conversion_value * x.factor, f.video_views, f.video_completions
    from (select case when p_source = p_target then 1::float8 else fx_factor(p_source, p_target, p.start) end) x(factor)
    cross join lateral (select * from facts f where f.ad_account_id = p_account and f.day = p.start offset 0) f
    where p.level = 0
  ) s
$$;

-- A month's creatives, from its pieces in the account's currency.
create or replace function rebuild_facts_monthly(p_accounts uuid[], p_months date[])
returns void
language sql
set enable_sort = off
as $$
  delete from facts_monthly m
  using unnest(p_accounts, p_months) as t(ad_account_id, month)
  where m.ad_account_id = t.ad_account_id and m.month = t.month;
  insert into facts_monthly
  select s.organization_id, t.ad_account_id, s.campaign_id, s.creative_id, t.month,
         sum(s.impressions), sum(s.clicks), sum(s.spend), sum(s.conversions), sum(s.conversion_value),
         sum(s.video_views), sum(s.video_completions)
  from unnest(p_accounts, p_months) as t(ad_account_id, month)
  join ad_accounts a on a.id = t.ad_account_id
  cross join lateral month_pieces(t.ad_account_id, t.month, a.currency, a.currency) s
  group by s.organization_id, t.ad_account_id, s.campaign_id, s.creative_id, t.month;
$$;

-- 019's converted rollups, each month's creatives from its pieces in the report currency; the campaigns' days, from
-- theirs, as 038 sums them.
create or replace function rebuild_converted_rollups(p_accounts uuid[], p_months date[], p_target text)
returns void
language sql
set jit = off
set enable_sort = off
as $$
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
    insert into facts_monthly_converted
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
    insert into facts_campaign_daily_converted
    select p.target, d.organization_id, d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks,
           d.spend * x.factor, d.conversions, d.conversion_value * x.factor, d.video_views, d.video_completions
    from pairs p
    join factors x on x.source = p.source and x.target = p.target and x.month = p.month
    cross join lateral (
      select * from facts_campaign_daily d where d.ad_account_id = p.ad_account_id and d.day = x.day offset 0
    ) d
  )
  insert into facts_campaign_monthly_converted
  select c.currency, c.organization_id, c.ad_account_id, c.campaign_id, c.month,
         sum(c.impressions), sum(c.clicks), case when count(*) = count(c.spend) then sum(c.spend) end, sum(c.conversions),
         case when count(*) = count(c.conversion_value) then sum(c.conversion_value) end,
         sum(c.video_views), sum(c.video_completions)
  from creatives c
  group by c.currency, c.organization_id, c.ad_account_id, c.campaign_id, c.month;
$$;

-- The spans first: the months are summed from them.
create or replace function rebuild_rollups(p_accounts uuid[], p_days date[])
returns void
language plpgsql
set jit = off
set plan_cache_mode = force_custom_plan
set work_mem = '64MB'
as $$
declare
  v_month_accounts uuid[];
  v_months date[];
begin
  select array_agg(ad_account_id), array_agg(month) into v_month_accounts, v_months
  from (select distinct ad_account_id, date_trunc('month', day)::date as month
        from unnest(p_accounts, p_days) as t(ad_account_id, day)) m;
  perform lock_converted_rollups(false);
  perform rebuild_spans(p_accounts, p_days, null, true);
  perform rebuild_facts_monthly(v_month_accounts, v_months);
  perform rebuild_facts_campaign_monthly(v_month_accounts, v_months);
  perform rebuild_facts_campaign_daily(p_accounts, p_days);
  perform rebuild_converted_rollups(v_month_accounts, v_months, null);
end
$$;

-- A rate's change, and a report currency added: the converted spans first, then the months from them.
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
    perform rebuild_converted_spans(v_accounts, v_months, null);
    perform rebuild_converted_rollups(v_accounts, v_months, null);
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
  perform rebuild_converted_spans(v_accounts, v_months, new.currency);
  perform rebuild_converted_rollups(v_accounts, v_months, new.currency);
  return null;
end
$$;
