-- 029: 028's span rebuild, the same spans (BENCHMARKS.md, "Loading facts"). The shortest spans read an account's four
-- days of facts once for every currency kept, not once a currency; every level sums each span on its own (a small
-- hash a span) rather than sorting all of a load's rows together.
create or replace function rebuild_spans(p_accounts uuid[], p_days date[], p_target text, p_native boolean)
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
      select t.ad_account_id, 2, t.start, s.target, s.creative_id, s.campaign_id, s.organization_id, s.impressions,
             s.clicks, s.spend, s.conversions, s.conversion_value, s.video_views, s.video_completions
      from t
      cross join lateral (
        select t.targets[k] as target, f.creative_id, f.campaign_id, f.organization_id,
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
        group by k, f.creative_id, f.campaign_id, f.organization_id
      ) s;
    else
      insert into facts_spans
      select t.ad_account_id, v_level, t.start, t.target, s.creative_id, s.campaign_id, s.organization_id,
             s.impressions, s.clicks, s.spend, s.conversions, s.conversion_value, s.video_views, s.video_completions
      from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
      cross join lateral (
        select s.creative_id, s.campaign_id, s.organization_id,
               sum(s.impressions) as impressions, sum(s.clicks) as clicks,
               case when count(*) = count(s.spend) then sum(s.spend) end as spend, sum(s.conversions) as conversions,
               case when count(*) = count(s.conversion_value) then sum(s.conversion_value) end as conversion_value,
               sum(s.video_views) as video_views, sum(s.video_completions) as video_completions
        from facts_spans s
        where s.ad_account_id = t.ad_account_id and s.level = v_level - 1 and s.currency = t.target
          and s.start >= t.start and s.start < t.start + (1 << v_level)
        group by s.creative_id, s.campaign_id, s.organization_id
      ) s;
    end if;
    insert into facts_campaign_spans
    select t.ad_account_id, v_level, t.start, t.target, s.campaign_id, s.organization_id,
           s.impressions, s.clicks, s.spend, s.conversions, s.conversion_value, s.video_views, s.video_completions
    from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
    cross join lateral (
      select s.campaign_id, s.organization_id, sum(s.impressions) as impressions, sum(s.clicks) as clicks,
             case when count(*) = count(s.spend) then sum(s.spend) end as spend, sum(s.conversions) as conversions,
             case when count(*) = count(s.conversion_value) then sum(s.conversion_value) end as conversion_value,
             sum(s.video_views) as video_views, sum(s.video_completions) as video_completions
      from facts_spans s
      where s.ad_account_id = t.ad_account_id and s.level = v_level and s.start = t.start and s.currency = t.target
      group by s.campaign_id, s.organization_id
    ) s;
  end loop;
end
$$;

-- A rebuild's statements are planned for millions of rows and would be compiled by JIT at every call, which costs a
-- load more than it saves (BENCHMARKS.md, "Loading facts"), as for the report queries (025).
alter function rebuild_rollups(uuid[], date[]) set jit = off;
alter function rebuild_spans(uuid[], date[], text, boolean) set jit = off;
alter function rebuild_converted_rollups(uuid[], date[], text) set jit = off;
