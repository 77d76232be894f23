-- 042: a write of facts finds its days once, in one trigger that hands them to the change stamps and to the rollups,
-- not in a trigger each over the statement's rows. For an update those are the days whose rows changed (034), so a
-- day an update left as it was is neither stamped nor rebuilt: its rollups already hold what a rebuild would write.
drop trigger fact_writes_insert on facts;
drop trigger fact_writes_update on facts;
drop trigger fact_writes_delete on facts;
drop trigger facts_monthly_insert on facts;
drop trigger facts_monthly_update on facts;
drop trigger facts_monthly_delete on facts;
drop function fact_writes_after_write();
drop function facts_monthly_after_write();

create function facts_after_write()
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

create trigger facts_written_insert after insert on facts
  referencing new table as new_rows for each statement execute function facts_after_write();
create trigger facts_written_update after update on facts
  referencing old table as old_rows new table as new_rows for each statement execute function facts_after_write();
create trigger facts_written_delete after delete on facts
  referencing old table as old_rows for each statement execute function facts_after_write();
