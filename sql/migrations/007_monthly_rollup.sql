-- 007: a monthly rollup of facts per creative, so a long range reads whole months from one row each instead of
-- thirty. Statement-level triggers rebuild the (account, month) pairs a statement touched, whoever writes facts.

create table facts_monthly (
  organization_id uuid not null,
  ad_account_id uuid not null,
  campaign_id uuid not null,
  creative_id uuid not null,
  month date not null,
  impressions bigint not null,
  clicks bigint not null,
  spend double precision not null,
  conversions double precision not null,
  conversion_value double precision not null,
  video_views bigint not null,
  video_completions bigint not null,
  primary key (ad_account_id, month, creative_id)
);

-- Recomputes the rollup rows of the given (account, month) pairs from facts.
create function rebuild_facts_monthly(p_accounts uuid[], p_months date[])
returns void
language sql as $$
  delete from facts_monthly m
  using unnest(p_accounts, p_months) as t(ad_account_id, month)
  where m.ad_account_id = t.ad_account_id and m.month = t.month;
  insert into facts_monthly
  select f.organization_id, f.ad_account_id, f.campaign_id, f.creative_id, t.month,
         sum(f.impressions), sum(f.clicks), sum(f.spend), sum(f.conversions), sum(f.conversion_value),
         sum(f.video_views), sum(f.video_completions)
  from unnest(p_accounts, p_months) as t(ad_account_id, month)
  join facts f on f.ad_account_id = t.ad_account_id and f.day >= t.month and f.day < (t.month + interval '1 month')::date
  group by f.organization_id, f.ad_account_id, f.campaign_id, f.creative_id, t.month;
$$;

create function facts_monthly_after_write()
returns trigger
language plpgsql as $$
declare
  v_accounts uuid[];
  v_months date[];
begin
  if tg_op = 'INSERT' then
    select array_agg(ad_account_id), array_agg(month) into v_accounts, v_months
    from (select distinct ad_account_id, date_trunc('month', day)::date as month from new_rows) t;
  elsif tg_op = 'DELETE' then
    select array_agg(ad_account_id), array_agg(month) into v_accounts, v_months
    from (select distinct ad_account_id, date_trunc('month', day)::date as month from old_rows) t;
  else
    select array_agg(ad_account_id), array_agg(month) into v_accounts, v_months
    from (select ad_account_id, date_trunc('month', day)::date as month from new_rows
          union select ad_account_id, date_trunc('month', day)::date from old_rows) t;
  end if;
  if v_accounts is not null then
    perform rebuild_facts_monthly(v_accounts, v_months);
  end if;
  return null;
end
$$;

create trigger facts_monthly_insert after insert on facts
  referencing new table as new_rows for each statement execute function facts_monthly_after_write();
create trigger facts_monthly_update after update on facts
  referencing old table as old_rows new table as new_rows for each statement execute function facts_monthly_after_write();
create trigger facts_monthly_delete after delete on facts
  referencing old table as old_rows for each statement execute function facts_monthly_after_write();

-- Existing facts, once.
select rebuild_facts_monthly(array_agg(ad_account_id), array_agg(month))
from (select distinct ad_account_id, date_trunc('month', day)::date as month from facts) t;

-- 006's contract, read from the rollup where it can: whole months of accounts already in the report's currency come
-- from the rollup (dated the 1st, so month grouping still works); the edge days, and accounts needing a conversion
-- at each day's rate, come from facts.
create or replace function report_facts(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
returns table (
  ad_account_id uuid, campaign_id uuid, creative_id uuid, day date,
  impressions bigint, clicks bigint, spend double precision, conversions double precision,
  conversion_value double precision, video_views bigint, video_completions bigint)
language sql stable as $$
  with accounts as (
    select a.id, a.currency from ad_accounts a where a.id = any(p_accounts)
  ), bounds as (
    -- Months in [first_full, after_full) lie wholly inside the range; after_full >= first_full always.
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
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks,
         f.spend * x.factor, f.conversions, f.conversion_value * x.factor, f.video_views, f.video_completions
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  , other o
  where f.ad_account_id = any(o.ids) and f.day >= p_from and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
$$;
