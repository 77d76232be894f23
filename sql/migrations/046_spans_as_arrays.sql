-- 046: a span of an account's facts is one row, its creatives' sums in arrays (element i of each is one creative), not
-- a row a creative. A rebuild writes a whole span of an account at once and a read takes one whole, so a row a creative
-- would only add an index entry and a row header to each creative's sums: most of what writing a span costs, and of
-- its bytes (BENCHMARKS.md, "Loading facts"). The arrays are stored uncompressed: sums hardly compress, and
-- compressing them costs more than writing them. A campaign's spans stay a row a campaign.

create table facts_span_sets (
  ad_account_id uuid not null,
  level smallint not null,
  start date not null,
  currency text not null,
  -- Element i of every array is one creative's sums over the span.
  creative_ids uuid[] not null,
  campaign_ids uuid[] not null,
  impressions bigint[] not null,
  clicks bigint[] not null,
  spend double precision[] not null,
  conversions double precision[] not null,
  conversion_value double precision[] not null,
  video_views bigint[] not null,
  video_completions bigint[] not null,
  primary key (ad_account_id, level, start, currency)
);
alter table facts_span_sets
  alter column creative_ids set storage external, alter column campaign_ids set storage external,
  alter column impressions set storage external, alter column clicks set storage external,
  alter column spend set storage external, alter column conversions set storage external,
  alter column conversion_value set storage external, alter column video_views set storage external,
  alter column video_completions set storage external;
-- Element statistics of arrays this long would cost an analysis more than any plan gains from them.
alter table facts_span_sets
  alter column creative_ids set statistics 0, alter column campaign_ids set statistics 0,
  alter column impressions set statistics 0, alter column clicks set statistics 0, alter column spend set statistics 0,
  alter column conversions set statistics 0, alter column conversion_value set statistics 0,
  alter column video_views set statistics 0, alter column video_completions set statistics 0;

insert into facts_span_sets
select ad_account_id, level, start, currency, array_agg(creative_id), array_agg(campaign_id), array_agg(impressions),
       array_agg(clicks), array_agg(spend), array_agg(conversions), array_agg(conversion_value), array_agg(video_views),
       array_agg(video_completions)
from facts_spans
group by ad_account_id, level, start, currency;

-- The functions that read or write the spans, each rewritten below, go before the table they name.
drop function month_pieces(uuid, date, text, text);
drop function report_creative_spans(uuid[], uuid[], date, date, text);
drop table facts_spans;
alter table facts_span_sets rename to facts_spans;
alter index facts_span_sets_pkey rename to facts_spans_pkey;

-- The creatives of the spans of p_level starting from p_from to p_to of the accounts, in p_currency, a row each:
-- what a row of facts_spans holds in 028. The arrays are unpacked side by side in the select list, over the rows as
-- they are read (a function scan of them all at once, unnest(a, b, ...), keeps every element in a tuplestore first).
-- Beside them, a series as long as they are: PostgreSQL plans an unnest of a column for 10 elements, a series for
-- 1,000, and a read planned for far fewer rows than it reads sorts them on disk.
create function span_creatives(p_accounts uuid[], p_level integer, p_from date, p_to date, p_currency text)
returns table(ad_account_id uuid, start date, campaign_id uuid, creative_id uuid, impressions bigint, clicks bigint,
              spend double precision, conversions double precision, conversion_value double precision,
              video_views bigint, video_completions bigint)
language sql stable parallel safe as $$
  select c.ad_account_id, c.start, c.campaign_id, c.creative_id, c.impressions, c.clicks, c.spend, c.conversions,
         c.conversion_value, c.video_views, c.video_completions
  from (
    select s.ad_account_id, s.start, unnest(s.campaign_ids) as campaign_id, unnest(s.creative_ids) as creative_id,
           unnest(s.impressions) as impressions, unnest(s.clicks) as clicks, unnest(s.spend) as spend,
           unnest(s.conversions) as conversions, unnest(s.conversion_value) as conversion_value,
           unnest(s.video_views) as video_views, unnest(s.video_completions) as video_completions,
           generate_series(1, cardinality(s.creative_ids)) as element
    from facts_spans s
    where s.ad_account_id = any(p_accounts) and s.level = p_level and s.start between p_from and p_to
      and s.currency = p_currency
  ) c
$$;

-- How many spans of p_level starting from p_from to p_to an account has in p_currency.
create function span_children(p_account uuid, p_level integer, p_from date, p_to date, p_currency text)
returns bigint
language sql stable parallel safe as $$
  select count(*) from facts_spans s
  where s.ad_account_id = p_account and s.level = p_level and s.start between p_from and p_to and s.currency = p_currency
$$;

-- 039's pieces of a month, its spans' creatives unpacked.
create function month_pieces(p_account uuid, p_month date, p_source text, p_target text)
returns table(organization_id uuid, campaign_id uuid, creative_id uuid, impressions bigint, clicks bigint,
              spend double precision, conversions double precision, conversion_value double precision,
              video_views bigint, video_completions bigint)
language sql stable as $$
  select a.organization_id, s.campaign_id, s.creative_id, s.impressions, s.clicks, s.spend, s.conversions,
         s.conversion_value, s.video_views, s.video_completions
  from ad_accounts a
  cross join span_pieces(p_month, (p_month + interval '1 month')::date - 1) p
  cross join lateral (
    select c.campaign_id, c.creative_id, c.impressions, c.clicks, c.spend, c.conversions, c.conversion_value,
           c.video_views, c.video_completions
    from span_creatives(array[p_account], p.level, p.start, p.start, p_target) c
    where p.level > 0
    union all
    select f.campaign_id, f.creative_id, f.impressions, f.clicks, f.spend * x.factor, f.conversions,
           f.conversion_value * x.factor, f.video_views, f.video_completions
    from (select case when p_source = p_target then 1::float8 else fx_factor(p_source, p_target, p.start) end) x(factor)
    cross join lateral (select * from facts f where f.ad_account_id = p_account and f.day = p.start offset 0) f
    where p.level = 0
  ) s
  where a.id = p_account
$$;

-- 041's rebuild, each span of an account written as one row.
create or replace function rebuild_spans(p_accounts uuid[], p_days date[], p_target text, p_native boolean)
returns void
language plpgsql
set jit = off
set plan_cache_mode = force_custom_plan
as $$
declare
  v_level integer;
  v_below integer := 0;
  v_accounts uuid[];
  v_starts date[];
  v_sources text[];
  v_targets text[];
begin
  foreach v_level in array array[2, 3, 4, 5, 6, 7, 8, 10] loop
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
      -- An account's span once, with its currencies (targets) and each one's four days' rates (factors[k][day]).
      with t as materialized (
        select t.ad_account_id, t.start, array_agg(t.target) as targets,
               array_agg(array(
                 select case when t.source = t.target then 1::float8 else fx_factor(t.source, t.target, t.start + d) end
                 from generate_series(0, 3) d order by d)) as factors
        from unnest(v_accounts, v_starts, v_sources, v_targets) as t(ad_account_id, start, source, target)
        group by t.ad_account_id, t.start
      )
      insert into facts_spans
      select t.ad_account_id, 2, t.start, s.target, array_agg(s.creative_id), array_agg(s.campaign_id),
             array_agg(s.impressions), array_agg(s.clicks), array_agg(s.spend), array_agg(s.conversions),
             array_agg(s.conversion_value), array_agg(s.video_views), array_agg(s.video_completions)
      from t
      cross join lateral (
        select t.targets[k] as target, f.creative_id, f.campaign_id,
               sum(f.impressions) as impressions, sum(f.clicks) as clicks,
               case when count(*) = count(t.factors[k][f.day - t.start + 1])
                 then sum(f.spend * t.factors[k][f.day - t.start + 1]) end as spend,
               sum(f.conversions) as conversions,
               case when count(*) = count(t.factors[k][f.day - t.start + 1])
                 then sum(f.conversion_value * t.factors[k][f.day - t.start + 1]) end as conversion_value,
               sum(f.video_views) as video_views, sum(f.video_completions) as video_completions
        from facts f
        cross join generate_subscripts(t.targets, 1) k
        where f.ad_account_id = t.ad_account_id and f.day >= t.start and f.day < t.start + 4
        group by k, f.creative_id, f.campaign_id
      ) s
      group by t.ad_account_id, t.start, s.target;
    else
      -- A span with one span below it holding facts holds what that one holds: its arrays are copied, not summed
      -- again (a day of new creatives; the later half of a span, not yet reached).
      insert into facts_spans
      select t.ad_account_id, v_level, t.start, t.target, b.creative_ids, b.campaign_ids, b.impressions, b.clicks,
             b.spend, b.conversions, b.conversion_value, b.video_views, b.video_completions
      from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
      join facts_spans b on b.ad_account_id = t.ad_account_id and b.level = v_below and b.currency = t.target
        and b.start between t.start and t.start + (1 << v_level) - 1
      where span_children(t.ad_account_id, v_below, t.start, t.start + (1 << v_level) - 1, t.target) = 1;
      insert into facts_spans
      select t.ad_account_id, v_level, t.start, t.target, s.*
      from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
      cross join lateral (
        select array_agg(c.creative_id), array_agg(c.campaign_id), array_agg(c.impressions), array_agg(c.clicks),
               array_agg(c.spend), array_agg(c.conversions), array_agg(c.conversion_value), array_agg(c.video_views),
               array_agg(c.video_completions)
        from (
          select c.creative_id, c.campaign_id, sum(c.impressions) as impressions, sum(c.clicks) as clicks,
                 case when count(*) = count(c.spend) then sum(c.spend) end as spend,
                 sum(c.conversions) as conversions,
                 case when count(*) = count(c.conversion_value) then sum(c.conversion_value) end as conversion_value,
                 sum(c.video_views) as video_views, sum(c.video_completions) as video_completions
          from span_creatives(array[t.ad_account_id], v_below, t.start, t.start + (1 << v_level) - 1, t.target) c
          group by c.creative_id, c.campaign_id
        ) c
        having count(*) > 0
      ) s
      where span_children(t.ad_account_id, v_below, t.start, t.start + (1 << v_level) - 1, t.target) > 1;
    end if;
    if v_level = 2 then
      insert into facts_campaign_spans
      select t.ad_account_id, v_level, t.start, t.target, s.campaign_id, a.organization_id,
             s.impressions, s.clicks, s.spend, s.conversions, s.conversion_value, s.video_views, s.video_completions
      from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
      join ad_accounts a on a.id = t.ad_account_id
      cross join lateral (
        select c.campaign_id, sum(c.impressions) as impressions, sum(c.clicks) as clicks,
               case when count(*) = count(c.spend) then sum(c.spend) end as spend, sum(c.conversions) as conversions,
               case when count(*) = count(c.conversion_value) then sum(c.conversion_value) end as conversion_value,
               sum(c.video_views) as video_views, sum(c.video_completions) as video_completions
        from span_creatives(array[t.ad_account_id], 2, t.start, t.start, t.target) c
        group by c.campaign_id
      ) s;
    else
      insert into facts_campaign_spans
      select t.ad_account_id, v_level, t.start, t.target, s.campaign_id, s.organization_id,
             s.impressions, s.clicks, s.spend, s.conversions, s.conversion_value, s.video_views, s.video_completions
      from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
      cross join lateral (
        select s.campaign_id, s.organization_id, sum(s.impressions) as impressions, sum(s.clicks) as clicks,
               case when count(*) = count(s.spend) then sum(s.spend) end as spend, sum(s.conversions) as conversions,
               case when count(*) = count(s.conversion_value) then sum(s.conversion_value) end as conversion_value,
               sum(s.video_views) as video_views, sum(s.video_completions) as video_completions
        from facts_campaign_spans s
        where s.ad_account_id = t.ad_account_id and s.level = v_below and s.currency = t.target
          and s.start >= t.start and s.start < t.start + (1 << v_level)
        group by s.campaign_id, s.organization_id
      ) s;
    end if;
    v_below := v_level;
  end loop;
end
$$;

-- 036's creatives over a range, its spans' creatives unpacked.
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
    select p.level, p.start from report_span_pieces(p_accounts, p_from, p_to) p
  ), day_factors as materialized (
    -- A single day's rate once per currency, not once per fact.
    select c.currency, p.start as day,
           case when c.currency = p_currency then 1::float8 else fx_factor(c.currency, p_currency, p.start) end as factor
    from (select distinct currency from accounts where same or rolled) c
    cross join pieces p
    where p.level = 0
  )
  select c.ad_account_id, c.campaign_id, c.creative_id, c.impressions, c.clicks, c.spend, c.conversions,
         c.conversion_value, c.video_views, c.video_completions
  from pieces p, kept k
  cross join lateral span_creatives(k.ids, p.level, p.start, p.start, p_currency) c
  where p.level > 0 and (p_campaigns is null or c.campaign_id = any(p_campaigns))
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
