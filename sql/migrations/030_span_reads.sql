-- 030: 028's span reads, each account filter in the index condition it narrows rather than checked after it. Tested
-- on every row read, the filter has PostgreSQL estimate a span read at a fraction of its rows, so that sorting them
-- all by creative or campaign looks as cheap as hashing, and it sorts, spilling to disk; read by the same condition,
-- it hashes (BENCHMARKS.md, "Spans").
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
    select p.level, p.start from span_pieces(p_from, p_to) p
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
