-- 034: an update's days found without sorting its rows. The change stamps hash the old and new rows on their key and
-- compare them column by column, rather than merging them (sorted on disk past work_mem) and comparing whole rows as
-- records. The rollups' days are the union of every old and new row's day, each side made distinct first
-- (BENCHMARKS.md, "Loading facts"). Which days are stamped and rebuilt is what 026 finds: a row added, removed or whose
-- values differ in any column names its day (docs/decisions.md §6, changedSince).
create or replace function fact_writes_after_write()
returns trigger
language plpgsql
set enable_mergejoin = off
set work_mem = '64MB'
as $$
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
      where n.creative_id is null or o.creative_id is null
        or (n.organization_id, n.campaign_id, n.impressions, n.clicks, n.spend, n.conversions, n.conversion_value,
            n.video_views, n.video_completions)
          is distinct from (o.organization_id, o.campaign_id, o.impressions, o.clicks, o.spend, o.conversions,
            o.conversion_value, o.video_views, o.video_completions)
    ) t;
  end if;
  perform stamp_fact_writes(v_accounts, v_days);
  return null;
end
$$;

create or replace function facts_monthly_after_write()
returns trigger
language plpgsql
as $$
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
    from (select distinct ad_account_id, day from new_rows union select distinct ad_account_id, day from old_rows) t;
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
