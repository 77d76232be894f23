-- 044: an import's update finds its days without pairing each old row with its new one. import-facts updates a fact
-- only where its numbers differ (its WHERE) and never moves one to another key, so each row of its update is a change
-- on the day it was and is on, and pairing its rows finds nothing more (BENCHMARKS.md, "Loading facts"). The import
-- says so with readout.updates_change (mark-updates-changing); any other update is paired, so the same numbers
-- written again by hand stamp nothing (docs/decisions.md §6, changedSince).
create or replace function facts_after_write()
returns trigger
language plpgsql
set enable_mergejoin = off
set work_mem = '64MB'
set enable_sort = off
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
  elsif current_setting('readout.updates_change', true) = 'on' then
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days
    from (select distinct ad_account_id, day from new_rows) t;
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
$$;
