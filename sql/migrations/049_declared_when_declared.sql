-- The declared sums (migration 048) cost a write nothing where no organization declares a base metric: the trigger
-- looks for one before it reads a statement's rows. A metric's removal empties its facts' numbers while it is still
-- declared (catalogue-clear-base-metric, then catalogue-delete-base-metric), so its sums follow. An account's sums go
-- with it, as its write stamps do (an organization's delete removes its facts, then its accounts).
create or replace function declared_after_write() returns trigger language plpgsql as $$
declare
  v_accounts uuid[];
  v_days date[];
begin
  if not exists (select from custom_metrics where slot is not null) then
    return null;
  end if;
  if tg_op = 'INSERT' then
    select array_agg(a), array_agg(d) into v_accounts, v_days
    from (select distinct ad_account_id as a, day as d from new_rows where declared is not null) t;
  elsif tg_op = 'DELETE' then
    select array_agg(a), array_agg(d) into v_accounts, v_days
    from (select distinct ad_account_id as a, day as d from old_rows where declared is not null) t;
  else
    select array_agg(a), array_agg(d) into v_accounts, v_days
    from (select ad_account_id as a, day as d from new_rows where declared is not null
          union
          select ad_account_id, day from old_rows where declared is not null) t;
  end if;
  if v_accounts is not null then
    perform rebuild_declared(v_accounts, v_days);
  end if;
  return null;
end
$$;

alter table declared_campaign_daily add constraint declared_campaign_daily_ad_account_id_fkey
  foreign key (ad_account_id) references ad_accounts (id) on delete cascade;
alter table declared_campaign_monthly add constraint declared_campaign_monthly_ad_account_id_fkey
  foreign key (ad_account_id) references ad_accounts (id) on delete cascade;
