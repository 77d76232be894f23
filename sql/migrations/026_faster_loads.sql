-- 026: loads of facts that do no work twice.
--
-- An update of facts (an import that restates days) finds the rows it changed by one hash join on the key (facts are
-- updated in place by their key), not by EXCEPTs over every column of both transition tables: a row on one side
-- only, or one whose numbers differ, stamps its day (as 021 rules).
create or replace function fact_writes_after_write()
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
      select distinct ad_account_id, day
      from new_rows n full join old_rows o using (ad_account_id, day, creative_id)
      where n is distinct from o
    ) t;
  end if;
  perform stamp_fact_writes(v_accounts, v_days);
  return null;
end
$$;

-- The converted rollups of 019, each day's rate reading that day's facts by the index (a lateral read keyed by account
-- and day, kept a subquery of its own by OFFSET 0 so that both keys stay its index's conditions), not the facts of
-- the whole month filtered by day.
create or replace function rebuild_converted_rollups(p_accounts uuid[], p_months date[], p_target text)
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
    select p.source, p.target, p.month, d::date as day, fx_factor(p.source, p.target, d::date) as factor
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
    join factors x on x.source = p.source and x.target = p.target and x.month = p.month
    cross join lateral (select * from facts f where f.ad_account_id = p.ad_account_id and f.day = x.day offset 0) f
    group by p.target, f.organization_id, f.ad_account_id, f.campaign_id, f.creative_id, p.month
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

-- An import's upsert fires both the insert and the update triggers of facts, and each would rebuild the rollups of the
-- months it touched. An import defers them (defer_rollups, for its transaction) and rebuilds each touched month once,
-- at its end (rebuild_deferred_rollups).
create function rebuild_rollups(p_accounts uuid[], p_days date[])
returns void
language plpgsql as $$
declare
  v_month_accounts uuid[];
  v_months date[];
begin
  select array_agg(ad_account_id), array_agg(month) into v_month_accounts, v_months
  from (select distinct ad_account_id, date_trunc('month', day)::date as month from unnest(p_accounts, p_days) as t(ad_account_id, day)) m;
  perform rebuild_facts_monthly(v_month_accounts, v_months);
  perform rebuild_facts_campaign_monthly(v_month_accounts, v_months);
  perform rebuild_facts_campaign_daily(p_accounts, p_days);
  perform lock_converted_rollups(false);
  perform rebuild_converted_rollups(v_month_accounts, v_months, null);
end
$$;

create function defer_rollups()
returns void
language plpgsql as $$
begin
  create temporary table if not exists deferred_rollup_days (ad_account_id uuid, day date, primary key (ad_account_id, day))
    on commit drop;
  perform set_config('readout.defer_rollups', 'on', true);
end
$$;

create function rebuild_deferred_rollups()
returns void
language plpgsql as $$
declare
  v_accounts uuid[];
  v_days date[];
begin
  perform set_config('readout.defer_rollups', 'off', true);
  select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days from deferred_rollup_days;
  delete from deferred_rollup_days;
  if v_accounts is not null then
    perform rebuild_rollups(v_accounts, v_days);
  end if;
end
$$;

create or replace function facts_monthly_after_write()
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
    from (select ad_account_id, day from new_rows union select ad_account_id, day from old_rows) t;
  end if;
  if v_accounts is null then
    return null;
  end if;
  if current_setting('readout.defer_rollups', true) = 'on' then
    insert into deferred_rollup_days select * from unnest(v_accounts, v_days) on conflict do nothing;
  else
    perform rebuild_rollups(v_accounts, v_days);
  end if;
  return null;
end
$$;

-- Facts name their ad account, campaign and creative, and only an import or generate writes them, with ids taken
-- from the rows that statement has just written, so foreign keys checking every fact on its own (a query and a row
-- lock on its account, campaign and creative apiece; BENCHMARKS.md, "Loading facts") check nothing new. The only
-- writes that could orphan a fact are deletes of those rows: one check a statement refuses those (23503).
alter table facts drop constraint facts_ad_account_id_fkey,
  drop constraint facts_campaign_id_fkey,
  drop constraint facts_creative_id_fkey;

create function refuse_orphaned_facts()
returns trigger
language plpgsql as $$
declare
  v_accounts uuid[];
  v_ids uuid[];
  v_column text;
begin
  if tg_table_name = 'ad_accounts' then
    select array_agg(id), array_agg(id) into v_accounts, v_ids from old_rows;
    v_column := 'ad_account_id';
  elsif tg_table_name = 'campaigns' then
    select array_agg(distinct ad_account_id), array_agg(id) into v_accounts, v_ids from old_rows;
    v_column := 'campaign_id';
  else
    -- A creative's account: any account of its organization (its campaign may be gone first).
    select array_agg(a.id) into v_accounts
    from ad_accounts a where a.organization_id in (select distinct organization_id from old_rows);
    select array_agg(id) into v_ids from old_rows;
    v_column := 'creative_id';
  end if;
  if v_ids is null or v_accounts is null then
    return null;
  end if;
  if exists (
    select 1 from facts f
    where f.ad_account_id = any(v_accounts)
      and case v_column when 'ad_account_id' then true
                        when 'campaign_id' then f.campaign_id = any(v_ids)
                        else f.creative_id = any(v_ids) end
  ) then
    raise exception 'facts still name the % being deleted', replace(tg_table_name, '_', ' ')
      using errcode = 'foreign_key_violation', hint = 'Delete its facts first, as org delete does.';
  end if;
  return null;
end
$$;

create trigger facts_named_accounts after delete on ad_accounts
  referencing old table as old_rows for each statement execute function refuse_orphaned_facts();
create trigger facts_named_campaigns after delete on campaigns
  referencing old table as old_rows for each statement execute function refuse_orphaned_facts();
create trigger facts_named_creatives after delete on creatives
  referencing old table as old_rows for each statement execute function refuse_orphaned_facts();
