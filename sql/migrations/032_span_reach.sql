-- 032: a span read widened over days that hold no facts of the report's accounts. A range that starts where its
-- accounts' facts start (their whole history, the usual first load) or ends after their last fact is the same answer
-- as one out to the 256-day spans around it: about 2 spans a row, not 6 spans and 4 single days (BENCHMARKS.md,
-- "Spans"). Exact: the widened range holds the same facts. The account rollup says where facts are: one row an
-- account and day, kept with the facts in the same transaction.

-- The spans to read for p_from..p_to: each end moved out to the longest span's edge that holds no fact of p_accounts
-- between it and the end, kept only where that makes fewer pieces (a short range widened to 256 days would not).
create function report_span_pieces(p_accounts uuid[], p_from date, p_to date)
returns table(level integer, start date)
language plpgsql stable as $$
declare
  v_before date;
  v_after date;
  v_wide_from date := p_from;
  v_wide_to date := p_to;
  v_from date := p_from;
  v_to date := p_to;
  v_level integer;
  v_fewest bigint;
  v_count bigint;
  v_pair record;
begin
  -- An account's nearest day each side, one index probe an account: a report of many accounts with facts on every
  -- day around the range would otherwise read them all.
  select max(d.day) into v_before from unnest(p_accounts) a(id)
  cross join lateral (
    select d.day from facts_account_daily d
    where d.ad_account_id = a.id and d.day >= span_start(8, p_from) and d.day < p_from
    order by d.day desc limit 1
  ) d;
  select min(d.day) into v_after from unnest(p_accounts) a(id)
  cross join lateral (
    select d.day from facts_account_daily d
    where d.ad_account_id = a.id and d.day > p_to and d.day < span_start(8, p_to) + 256
    order by d.day limit 1
  ) d;
  for v_level in reverse 8..1 loop
    if span_start(v_level, p_from) > coalesce(v_before, '-infinity') then
      v_wide_from := span_start(v_level, p_from);
      exit;
    end if;
  end loop;
  for v_level in reverse 8..1 loop
    if span_start(v_level, p_to) + (1 << v_level) - 1 < coalesce(v_after, 'infinity') then
      v_wide_to := span_start(v_level, p_to) + (1 << v_level) - 1;
      exit;
    end if;
  end loop;
  select count(*) into v_fewest from span_pieces(p_from, p_to);
  for v_pair in select c.f, c.t from (values (v_wide_from, p_to), (p_from, v_wide_to), (v_wide_from, v_wide_to)) c(f, t)
  loop
    select count(*) into v_count from span_pieces(v_pair.f, v_pair.t);
    if v_count < v_fewest then
      v_fewest := v_count;
      v_from := v_pair.f;
      v_to := v_pair.t;
    end if;
  end loop;
  return query select p.level, p.start from span_pieces(v_from, v_to) p;
end
$$;

create or replace function report_creative_spans(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
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
    select p.level, p.start from report_span_pieces(p_accounts, p_from, p_to) p
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
    where s.ad_account_id = any(k.ids) and s.level = p.level and s.start = p.start and s.currency = p_currency
      and (p_campaigns is null or s.campaign_id = any(p_campaigns))
    offset 0
  ) s
  where p.level > 0
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

-- The same per campaign.
create or replace function report_campaign_spans(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
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
$$;
