-- The functions that write and read the stored sums of the base metrics (docs/lattice.md), each list of the base
-- metrics written once as a {{base: …}} placeholder (src/store/baseLists.ts). `npm run sql:lattice` writes
-- sql/lattice/lattice.sql from this file and src/dataModel.ts; edit this file, never that one.

CREATE OR REPLACE FUNCTION public.facts_after_write()
 RETURNS trigger
 LANGUAGE plpgsql
 SET enable_mergejoin TO 'off'
 SET work_mem TO '64MB'
 SET enable_sort TO 'off'
AS $function$
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
  elsif current_setting('readout.updates_change', true) = 'on' then
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days
    from (select distinct ad_account_id, day from new_rows) t;
  else
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days
    from (
      select distinct ad_account_id, day
      from new_rows n full join old_rows o using (ad_account_id, day, creative_id)
      where n.creative_id is null or o.creative_id is null
        or (n.organization_id, n.campaign_id, {{base: n.%}})
          is distinct from (o.organization_id, o.campaign_id, {{base: o.%}})
    ) t;
  end if;
  if v_accounts is null then
    return null;
  end if;
  perform stamp_fact_writes(v_accounts, v_days);
  if current_setting('readout.defer_rollups', true) = 'on' then
    insert into deferred_rollup_days select * from unnest(v_accounts, v_days) on conflict do nothing;
  else
    perform rebuild_rollups(v_accounts, v_days);
  end if;
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION public.month_pieces(p_account uuid, p_month date, p_source text, p_target text)
 RETURNS TABLE(organization_id uuid, campaign_id uuid, creative_id uuid, {{base: % bigint ;; money: % double precision ;; decimal: % double precision}})
 LANGUAGE sql
 STABLE
AS $function$
  select a.organization_id, s.campaign_id, s.creative_id, {{base: s.%}}
  from ad_accounts a
  cross join span_pieces(p_month, (p_month + interval '1 month')::date - 1) p
  cross join lateral (
    select c.campaign_id, c.creative_id, {{base: c.%}}
    from span_creatives(array[p_account], p.level, p.start, p.start, p_target) c
    where p.level > 0
    union all
    select f.campaign_id, f.creative_id, {{base: f.% ;; money: f.% * x.factor}}
    -- The day's rate once (offset 0 keeps it a row of its own): pulled up, it is looked up a fact and money column.
    from (select case when p_source = p_target then 1::float8 else fx_factor(p_source, p_target, p.start) end
          offset 0) x(factor)
    cross join lateral (select * from facts f where f.ad_account_id = p_account and f.day = p.start offset 0) f
    where p.level = 0
  ) s
  where a.id = p_account
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_converted_rollups(p_accounts uuid[], p_months date[], p_target text)
 RETURNS void
 LANGUAGE sql
 SET jit TO 'off'
 SET enable_sort TO 'off'
AS $function$
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
    insert into facts_monthly_converted (currency, organization_id, ad_account_id, campaign_id, creative_id, month,
      {{base: %}})
    select p.target, s.organization_id, p.ad_account_id, s.campaign_id, s.creative_id, p.month,
           {{base: sum(s.%) ;; money: case when count(*) = count(s.%) then sum(s.%) end}}
    from pairs p
    cross join lateral month_pieces(p.ad_account_id, p.month, p.source, p.target) s
    group by p.target, s.organization_id, p.ad_account_id, s.campaign_id, s.creative_id, p.month
    returning *
  ), days as (
    insert into facts_campaign_daily_converted (currency, organization_id, ad_account_id, campaign_id, day,
      {{base: %}})
    select p.target, d.organization_id, d.ad_account_id, d.campaign_id, d.day, {{base: d.% ;; money: d.% * x.factor}}
    from pairs p
    join factors x on x.source = p.source and x.target = p.target and x.month = p.month
    cross join lateral (
      select * from facts_campaign_daily d where d.ad_account_id = p.ad_account_id and d.day = x.day offset 0
    ) d
  )
  insert into facts_campaign_monthly_converted (currency, organization_id, ad_account_id, campaign_id, month,
    {{base: %}})
  select c.currency, c.organization_id, c.ad_account_id, c.campaign_id, c.month,
         {{base: sum(c.%) ;; money: case when count(*) = count(c.%) then sum(c.%) end}}
  from creatives c
  group by c.currency, c.organization_id, c.ad_account_id, c.campaign_id, c.month;
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_facts_account_daily(p_accounts uuid[], p_days date[])
 RETURNS void
 LANGUAGE sql
AS $function$
  delete from facts_account_daily d
  using unnest(p_accounts, p_days) as t(ad_account_id, day)
  where d.ad_account_id = t.ad_account_id and d.day = t.day;
  insert into facts_account_daily (organization_id, ad_account_id, day, {{base: %}})
  select c.organization_id, c.ad_account_id, c.day, {{base: sum(c.%)}}
  from (select distinct * from unnest(p_accounts, p_days) as t(ad_account_id, day)) t
  join facts_campaign_daily c on c.ad_account_id = t.ad_account_id and c.day = t.day
  group by c.organization_id, c.ad_account_id, c.day;
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_facts_account_daily_converted(p_currencies text[], p_accounts uuid[], p_days date[])
 RETURNS void
 LANGUAGE sql
AS $function$
  delete from facts_account_daily_converted d
  using unnest(p_currencies, p_accounts, p_days) as t(currency, ad_account_id, day)
  where d.currency = t.currency and d.ad_account_id = t.ad_account_id and d.day = t.day;
  insert into facts_account_daily_converted (currency, organization_id, ad_account_id, day, {{base: %}})
  select c.currency, c.organization_id, c.ad_account_id, c.day, {{base: sum(c.%) ;; money: case when count(*) = count(c.%) then sum(c.%) end}}
  from (select distinct * from unnest(p_currencies, p_accounts, p_days) as t(currency, ad_account_id, day)) t
  join facts_campaign_daily_converted c on c.currency = t.currency and c.ad_account_id = t.ad_account_id and c.day = t.day
  group by c.currency, c.organization_id, c.ad_account_id, c.day;
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_facts_campaign_daily(p_accounts uuid[], p_days date[])
 RETURNS void
 LANGUAGE sql
 SET enable_sort TO 'off'
AS $function$
  delete from facts_campaign_daily d
  using unnest(p_accounts, p_days) as t(ad_account_id, day)
  where d.ad_account_id = t.ad_account_id and d.day = t.day;
  insert into facts_campaign_daily (organization_id, ad_account_id, campaign_id, day, {{base: %}})
  select f.organization_id, f.ad_account_id, f.campaign_id, f.day,
         {{base: sum(f.%)}}
  from unnest(p_accounts, p_days) as t(ad_account_id, day)
  join facts f on f.ad_account_id = t.ad_account_id and f.day = t.day
  group by f.organization_id, f.ad_account_id, f.campaign_id, f.day;
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_facts_campaign_monthly(p_accounts uuid[], p_months date[])
 RETURNS void
 LANGUAGE sql
AS $function$
  delete from facts_campaign_monthly m
  using unnest(p_accounts, p_months) as t(ad_account_id, month)
  where m.ad_account_id = t.ad_account_id and m.month = t.month;
  insert into facts_campaign_monthly (organization_id, ad_account_id, campaign_id, month, {{base: %}})
  select m.organization_id, m.ad_account_id, m.campaign_id, m.month,
         {{base: sum(m.%)}}
  from unnest(p_accounts, p_months) as t(ad_account_id, month)
  join facts_monthly m on m.ad_account_id = t.ad_account_id and m.month = t.month
  group by m.organization_id, m.ad_account_id, m.campaign_id, m.month;
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_facts_monthly(p_accounts uuid[], p_months date[])
 RETURNS void
 LANGUAGE sql
 SET enable_sort TO 'off'
AS $function$
  delete from facts_monthly m
  using unnest(p_accounts, p_months) as t(ad_account_id, month)
  where m.ad_account_id = t.ad_account_id and m.month = t.month;
  insert into facts_monthly (organization_id, ad_account_id, campaign_id, creative_id, month, {{base: %}})
  select s.organization_id, t.ad_account_id, s.campaign_id, s.creative_id, t.month,
         {{base: sum(s.%)}}
  from unnest(p_accounts, p_months) as t(ad_account_id, month)
  join ad_accounts a on a.id = t.ad_account_id
  cross join lateral month_pieces(t.ad_account_id, t.month, a.currency, a.currency) s
  group by s.organization_id, t.ad_account_id, s.campaign_id, s.creative_id, t.month;
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_spans(p_accounts uuid[], p_days date[], p_target text, p_native boolean)
 RETURNS void
 LANGUAGE plpgsql
 SET jit TO 'off'
 SET plan_cache_mode TO 'force_custom_plan'
AS $function$
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
      insert into facts_spans (ad_account_id, level, start, currency, creative_ids, campaign_ids, {{base: %}})
      select t.ad_account_id, 2, t.start, s.target, array_agg(s.creative_id), array_agg(s.campaign_id),
             {{base: array_agg(s.%)}}
      from t
      cross join lateral (
        select t.targets[k] as target, f.creative_id, f.campaign_id,
               {{base: sum(f.%) as % ;; money: case when count(*) = count(t.factors[k][f.day - t.start + 1])
                 then sum(f.% * t.factors[k][f.day - t.start + 1]) end as %}}
        from facts f
        cross join generate_subscripts(t.targets, 1) k
        where f.ad_account_id = t.ad_account_id and f.day >= t.start and f.day < t.start + 4
        group by k, f.creative_id, f.campaign_id
      ) s
      group by t.ad_account_id, t.start, s.target;
    else
      -- A span with one span below it holding facts holds what that one holds: its arrays are copied, not summed
      -- again (a day of new creatives; the later half of a span, not yet reached).
      insert into facts_spans (ad_account_id, level, start, currency, creative_ids, campaign_ids, {{base: %}})
      select t.ad_account_id, v_level, t.start, t.target, b.creative_ids, b.campaign_ids, {{base: b.%}}
      from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
      join facts_spans b on b.ad_account_id = t.ad_account_id and b.level = v_below and b.currency = t.target
        and b.start between t.start and t.start + (1 << v_level) - 1
      where span_children(t.ad_account_id, v_below, t.start, t.start + (1 << v_level) - 1, t.target) = 1;
      insert into facts_spans (ad_account_id, level, start, currency, creative_ids, campaign_ids, {{base: %}})
      select t.ad_account_id, v_level, t.start, t.target, s.*
      from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
      cross join lateral (
        select array_agg(c.creative_id), array_agg(c.campaign_id), {{base: array_agg(c.%)}}
        from (
          select c.creative_id, c.campaign_id, {{base: sum(c.%) as % ;; money: case when count(*) = count(c.%) then sum(c.%) end as %}}
          from span_creatives(array[t.ad_account_id], v_below, t.start, t.start + (1 << v_level) - 1, t.target) c
          group by c.creative_id, c.campaign_id
        ) c
        having count(*) > 0
      ) s
      where span_children(t.ad_account_id, v_below, t.start, t.start + (1 << v_level) - 1, t.target) > 1;
    end if;
    if v_level = 2 then
      insert into facts_campaign_spans (ad_account_id, level, start, currency, campaign_id, organization_id,
        {{base: %}})
      select t.ad_account_id, v_level, t.start, t.target, s.campaign_id, a.organization_id,
             {{base: s.%}}
      from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
      join ad_accounts a on a.id = t.ad_account_id
      cross join lateral (
        select c.campaign_id, {{base: sum(c.%) as % ;; money: case when count(*) = count(c.%) then sum(c.%) end as %}}
        from span_creatives(array[t.ad_account_id], 2, t.start, t.start, t.target) c
        group by c.campaign_id
      ) s;
    else
      insert into facts_campaign_spans (ad_account_id, level, start, currency, campaign_id, organization_id,
        {{base: %}})
      select t.ad_account_id, v_level, t.start, t.target, s.campaign_id, s.organization_id,
             {{base: s.%}}
      from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
      cross join lateral (
        select s.campaign_id, s.organization_id, {{base: sum(s.%) as % ;; money: case when count(*) = count(s.%) then sum(s.%) end as %}}
        from facts_campaign_spans s
        where s.ad_account_id = t.ad_account_id and s.level = v_below and s.currency = t.target
          and s.start >= t.start and s.start < t.start + (1 << v_level)
        group by s.campaign_id, s.organization_id
      ) s;
    end if;
    v_below := v_level;
  end loop;
end
$function$;

CREATE OR REPLACE FUNCTION public.report_account_days(p_accounts uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, day date, {{base: % bigint ;; money: % double precision ;; decimal: % double precision}})
 LANGUAGE sql
 STABLE
AS $function$
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
  select d.ad_account_id, d.day, {{base: d.%}}
  from facts_account_daily d, same s
  where d.ad_account_id = any(s.ids) and d.day >= p_from and d.day <= p_to
  union all
  select d.ad_account_id, d.day, {{base: d.%}}
  from facts_account_daily_converted d, rolled o
  where d.currency = p_currency and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
  union all
  select d.ad_account_id, d.day, {{base: d.% ;; money: d.% * x.factor}}
  from facts_account_daily d
  join accounts a on a.id = d.ad_account_id
  join factors x on x.currency = a.currency and x.day = d.day
  , daily o
  -- Uncorrelated, so PostgreSQL skips the branch when every account has its rollup (a one-time filter).
  where exists (select 1 from accounts where not same and not rolled) and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
$function$;

CREATE OR REPLACE FUNCTION public.report_account_facts(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, day date, {{base: % bigint ;; money: % double precision ;; decimal: % double precision}})
 LANGUAGE sql
 STABLE
AS $function$
  select f.ad_account_id, f.day, {{base: f.%}}
  from report_account_days(p_accounts, p_from, p_to, p_currency) f
  where p_campaigns is null
  union all
  select f.ad_account_id, f.day, {{base: f.%}}
  from report_campaign_facts(p_accounts, p_campaigns, p_from, p_to, p_currency) f
  where p_campaigns is not null
$function$;

CREATE OR REPLACE FUNCTION public.report_account_periods(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text, p_interval text, p_since timestamp with time zone)
 RETURNS TABLE(ad_account_id uuid, period date, {{base: % bigint ;; money: % double precision ;; decimal: % double precision}})
 LANGUAGE sql
 STABLE
AS $function$
  select f.ad_account_id, period_start(p_interval, f.day), {{base: f.%}}
  from report_account_days(p_accounts, p_from, p_to, p_currency) f
  where p_interval <> 'month' and p_campaigns is null
    and (p_since is null or period_start(p_interval, f.day) in (select c.period from changed_periods(p_accounts, p_from, p_to, p_interval, p_since) c))
  union all
  select f.ad_account_id, f.period, {{base: f.%}}
  from report_campaign_periods(p_accounts, p_campaigns, p_from, p_to, p_currency, p_interval, p_since) f
  where p_interval = 'month' or p_campaigns is not null
$function$;

CREATE OR REPLACE FUNCTION public.report_campaign_days(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, day date, {{base: % bigint ;; money: % double precision ;; decimal: % double precision}})
 LANGUAGE sql
 STABLE
AS $function$
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
  select d.ad_account_id, d.campaign_id, d.day, {{base: d.%}}
  from facts_campaign_daily d, same s
  where d.ad_account_id = any(s.ids) and d.day >= p_from and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, {{base: d.%}}
  from facts_campaign_daily_converted d, rolled o
  where d.currency = p_currency and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, {{base: d.% ;; money: d.% * x.factor}}
  from facts_campaign_daily d
  join accounts a on a.id = d.ad_account_id
  join factors x on x.currency = a.currency and x.day = d.day
  , daily o
  -- Uncorrelated, so PostgreSQL skips the branch when every account has its rollup (a one-time filter).
  where exists (select 1 from accounts where not same and not rolled) and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
$function$;

CREATE OR REPLACE FUNCTION public.report_campaign_facts(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, day date, {{base: % bigint ;; money: % double precision ;; decimal: % double precision}})
 LANGUAGE sql
 STABLE
AS $function$
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
  select m.ad_account_id, m.campaign_id, m.month, {{base: m.%}}
  from facts_campaign_monthly m, same s
  where m.ad_account_id = any(p_accounts) and m.ad_account_id = any(s.ids) and m.month >= first_full_month(p_from) and m.month < after_full_month(p_from, p_to)
    and (p_campaigns is null or m.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, {{base: d.%}}
  from facts_campaign_daily d, same s
  where d.ad_account_id = any(p_accounts) and d.ad_account_id = any(s.ids) and d.day >= p_from and d.day <= p_to and d.day < first_full_month(p_from)
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, {{base: d.%}}
  from facts_campaign_daily d, same s
  where d.ad_account_id = any(p_accounts) and d.ad_account_id = any(s.ids) and d.day >= after_full_month(p_from, p_to) and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select m.ad_account_id, m.campaign_id, m.month, {{base: m.%}}
  from facts_campaign_monthly_converted m, rolled o
  where m.currency = p_currency and m.ad_account_id = any(p_accounts) and m.ad_account_id = any(o.ids) and m.month >= first_full_month(p_from) and m.month < after_full_month(p_from, p_to)
    and (p_campaigns is null or m.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, {{base: d.%}}
  from facts_campaign_daily_converted d, rolled o
  where d.currency = p_currency and d.ad_account_id = any(p_accounts) and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to and d.day < first_full_month(p_from)
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, {{base: d.%}}
  from facts_campaign_daily_converted d, rolled o
  where d.currency = p_currency and d.ad_account_id = any(p_accounts) and d.ad_account_id = any(o.ids) and d.day >= after_full_month(p_from, p_to) and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, {{base: d.% ;; money: d.% * x.factor}}
  from facts_campaign_daily d
  join accounts a on a.id = d.ad_account_id
  join factors x on x.currency = a.currency and x.day = d.day
  , daily o
  -- Uncorrelated, so PostgreSQL skips the branch when every account has its rollup (a one-time filter).
  where exists (select 1 from accounts where not same and not rolled) and d.ad_account_id = any(p_accounts) and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
$function$;

CREATE OR REPLACE FUNCTION public.report_campaign_periods(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text, p_interval text, p_since timestamp with time zone)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, period date, {{base: % bigint ;; money: % double precision ;; decimal: % double precision}})
 LANGUAGE sql
 STABLE
AS $function$
  select f.ad_account_id, f.campaign_id, period_start('month', f.day), {{base: f.%}}
  from report_campaign_facts(p_accounts, p_campaigns, p_from, p_to, p_currency) f
  where p_interval = 'month'
    and (p_since is null or period_start('month', f.day) in (select c.period from changed_periods(p_accounts, p_from, p_to, 'month', p_since) c))
  union all
  select f.ad_account_id, f.campaign_id, period_start(p_interval, f.day), {{base: f.%}}
  from report_campaign_days(p_accounts, p_campaigns, p_from, p_to, p_currency) f
  where p_interval <> 'month'
    and (p_since is null or period_start(p_interval, f.day) in (select c.period from changed_periods(p_accounts, p_from, p_to, p_interval, p_since) c))
$function$;

CREATE OR REPLACE FUNCTION public.report_campaign_spans(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, {{base: % bigint ;; money: % double precision ;; decimal: % double precision}})
 LANGUAGE sql
 STABLE
AS $function$
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
  select s.ad_account_id, s.campaign_id, {{base: s.%}}
  from pieces p, kept k
  cross join lateral (
    select * from facts_campaign_spans s
    where s.ad_account_id = any(k.ids) and s.level = p.level and s.start = p.start and s.currency = p_currency
      and (p_campaigns is null or s.campaign_id = any(p_campaigns))
    offset 0
  ) s
  where p.level > 0
  union all
  select d.ad_account_id, d.campaign_id, {{base: d.%}}
  from pieces p, same o
  cross join lateral (
    select * from facts_campaign_daily d
    where d.ad_account_id = any(o.ids) and d.day = p.start and (p_campaigns is null or d.campaign_id = any(p_campaigns))
    offset 0
  ) d
  where p.level = 0
  union all
  select d.ad_account_id, d.campaign_id, {{base: d.%}}
  from pieces p, rolled o
  cross join lateral (
    select * from facts_campaign_daily_converted d
    where d.currency = p_currency and d.ad_account_id = any(o.ids) and d.day = p.start
      and (p_campaigns is null or d.campaign_id = any(p_campaigns))
    offset 0
  ) d
  where p.level = 0
  union all
  select f.ad_account_id, f.campaign_id, {{base: f.%}}
  from report_campaign_facts(array(select id from accounts where not same and not rolled), p_campaigns, p_from, p_to,
                             p_currency) f
  where exists (select 1 from accounts where not same and not rolled)
$function$;

CREATE OR REPLACE FUNCTION public.report_creative_days(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, creative_id uuid, day date, {{base: % bigint ;; money: % double precision ;; decimal: % double precision}})
 LANGUAGE sql
 STABLE
AS $function$
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
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, {{base: f.%}}
  from facts f, same s
  where f.ad_account_id = any(s.ids) and f.day >= p_from and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, {{base: f.% ;; money: f.% * x.factor}}
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  , other o
  where exists (select 1 from accounts where not same) and f.ad_account_id = any(o.ids) and f.day >= p_from and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
$function$;

CREATE OR REPLACE FUNCTION public.report_creative_periods(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text, p_interval text, p_since timestamp with time zone)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, creative_id uuid, period date, {{base: % bigint ;; money: % double precision ;; decimal: % double precision}})
 LANGUAGE sql
 STABLE
AS $function$
  select f.ad_account_id, f.campaign_id, f.creative_id, period_start('month', f.day), {{base: f.%}}
  from report_facts(p_accounts, p_campaigns, p_from, p_to, p_currency) f
  where p_interval = 'month'
    and (p_since is null or period_start('month', f.day) in (select c.period from changed_periods(p_accounts, p_from, p_to, 'month', p_since) c))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, period_start(p_interval, f.day), {{base: f.%}}
  from report_creative_days(p_accounts, p_campaigns, p_from, p_to, p_currency) f
  where p_interval <> 'month'
    and (p_since is null or period_start(p_interval, f.day) in (select c.period from changed_periods(p_accounts, p_from, p_to, p_interval, p_since) c))
$function$;

CREATE OR REPLACE FUNCTION public.report_creative_spans(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, creative_id uuid, {{base: % bigint ;; money: % double precision ;; decimal: % double precision}})
 LANGUAGE sql
 STABLE
AS $function$
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
  select c.ad_account_id, c.campaign_id, c.creative_id, {{base: c.%}}
  from pieces p, kept k
  cross join lateral span_creatives(k.ids, p.level, p.start, p.start, p_currency) c
  where p.level > 0 and (p_campaigns is null or c.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, {{base: f.% ;; money: f.% * x.factor}}
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
  select f.ad_account_id, f.campaign_id, f.creative_id, {{base: f.%}}
  from report_facts(array(select id from accounts where not same and not rolled), p_campaigns, p_from, p_to, p_currency) f
  -- Uncorrelated: a one-time filter, so the function is not run at all when every account has its spans.
  where exists (select 1 from accounts where not same and not rolled)
$function$;

CREATE OR REPLACE FUNCTION public.report_facts(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, creative_id uuid, day date, {{base: % bigint ;; money: % double precision ;; decimal: % double precision}})
 LANGUAGE sql
 STABLE
AS $function$
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
    from (select distinct currency from accounts where not same) c
    cross join generate_series(p_from, p_to, interval '1 day') d
    where d < first_full_month(p_from) or d >= after_full_month(p_from, p_to) or exists (select 1 from accounts where not same and not rolled)
  )
  select m.ad_account_id, m.campaign_id, m.creative_id, m.month, {{base: m.%}}
  from facts_monthly m, same s
  where m.ad_account_id = any(p_accounts) and m.ad_account_id = any(s.ids) and m.month >= first_full_month(p_from) and m.month < after_full_month(p_from, p_to)
    and (p_campaigns is null or m.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, {{base: f.%}}
  from facts f, same s
  where f.ad_account_id = any(p_accounts) and f.ad_account_id = any(s.ids) and f.day >= p_from and f.day <= p_to and f.day < first_full_month(p_from)
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, {{base: f.%}}
  from facts f, same s
  where f.ad_account_id = any(p_accounts) and f.ad_account_id = any(s.ids) and f.day >= after_full_month(p_from, p_to) and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select m.ad_account_id, m.campaign_id, m.creative_id, m.month, {{base: m.%}}
  from facts_monthly_converted m, rolled o
  where m.currency = p_currency and m.ad_account_id = any(p_accounts) and m.ad_account_id = any(o.ids) and m.month >= first_full_month(p_from) and m.month < after_full_month(p_from, p_to)
    and (p_campaigns is null or m.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, {{base: f.% ;; money: f.% * x.factor}}
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  , rolled o
  where f.ad_account_id = any(p_accounts) and f.ad_account_id = any(o.ids) and f.day >= p_from and f.day <= p_to and f.day < first_full_month(p_from)
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, {{base: f.% ;; money: f.% * x.factor}}
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  , rolled o
  where f.ad_account_id = any(p_accounts) and f.ad_account_id = any(o.ids) and f.day >= after_full_month(p_from, p_to) and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, {{base: f.% ;; money: f.% * x.factor}}
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  , daily o
  -- Uncorrelated, so PostgreSQL skips the branch when every account has its rollup (a one-time filter).
  where exists (select 1 from accounts where not same and not rolled) and f.ad_account_id = any(p_accounts) and f.ad_account_id = any(o.ids) and f.day >= p_from and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
$function$;

CREATE OR REPLACE FUNCTION public.span_creatives(p_accounts uuid[], p_level integer, p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, start date, campaign_id uuid, creative_id uuid, {{base: % bigint ;; money: % double precision ;; decimal: % double precision}})
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  select c.ad_account_id, c.start, c.campaign_id, c.creative_id, {{base: c.%}}
  from (
    select s.ad_account_id, s.start, unnest(s.campaign_ids) as campaign_id, unnest(s.creative_ids) as creative_id,
           {{base: unnest(s.%) as %}},
           generate_series(1, cardinality(s.creative_ids)) as element
    from facts_spans s
    where s.ad_account_id = any(p_accounts) and s.level = p_level and s.start between p_from and p_to
      and s.currency = p_currency
  ) c
$function$;
