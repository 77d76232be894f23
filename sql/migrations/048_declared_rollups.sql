-- The declared base metrics' sums (migration 047) by campaign and day, and by campaign and month: what an answer that
-- asks for one reads, instead of every fact of its range (report/declared.ts). Only facts that hold declared numbers
-- are summed, so an organization that declares none has no rows here, and a slot is a column (d1 to d8), 0 where a
-- fact has none. Kept exact by a trigger on facts, whoever writes them, as the rollups of the built-in metrics are;
-- money stays in the ad account's currency (an answer in another converts each day's sum at that day's rate).
create table declared_campaign_daily (
  ad_account_id uuid not null,
  day date not null,
  campaign_id uuid not null,
  d1 double precision not null,
  d2 double precision not null,
  d3 double precision not null,
  d4 double precision not null,
  d5 double precision not null,
  d6 double precision not null,
  d7 double precision not null,
  d8 double precision not null,
  primary key (ad_account_id, day, campaign_id)
);

create table declared_campaign_monthly (
  ad_account_id uuid not null,
  month date not null,
  campaign_id uuid not null,
  d1 double precision not null,
  d2 double precision not null,
  d3 double precision not null,
  d4 double precision not null,
  d5 double precision not null,
  d6 double precision not null,
  d7 double precision not null,
  d8 double precision not null,
  primary key (ad_account_id, month, campaign_id)
);

-- The sums of the given accounts' days, and of the months that hold them, written anew from the facts.
create function rebuild_declared(p_accounts uuid[], p_days date[]) returns void language sql as $$
  delete from declared_campaign_daily d
  using (select distinct a, day from unnest(p_accounts, p_days) t(a, day)) t
  where d.ad_account_id = t.a and d.day = t.day;
  insert into declared_campaign_daily (ad_account_id, day, campaign_id, d1, d2, d3, d4, d5, d6, d7, d8)
  select f.ad_account_id, f.day, f.campaign_id, sum(coalesce(f.declared[1], 0)), sum(coalesce(f.declared[2], 0)), sum(coalesce(f.declared[3], 0)), sum(coalesce(f.declared[4], 0)), sum(coalesce(f.declared[5], 0)), sum(coalesce(f.declared[6], 0)), sum(coalesce(f.declared[7], 0)), sum(coalesce(f.declared[8], 0))
  from facts f
  join (select distinct a, day from unnest(p_accounts, p_days) t(a, day)) t on f.ad_account_id = t.a and f.day = t.day
  where f.declared is not null
  group by f.ad_account_id, f.day, f.campaign_id;
  delete from declared_campaign_monthly m
  using (select distinct a, date_trunc('month', day::timestamp)::date as month from unnest(p_accounts, p_days) t(a, day)) t
  where m.ad_account_id = t.a and m.month = t.month;
  insert into declared_campaign_monthly (ad_account_id, month, campaign_id, d1, d2, d3, d4, d5, d6, d7, d8)
  select d.ad_account_id, t.month, d.campaign_id, sum(d.d1), sum(d.d2), sum(d.d3), sum(d.d4), sum(d.d5), sum(d.d6), sum(d.d7), sum(d.d8)
  from declared_campaign_daily d
  join (select distinct a, date_trunc('month', day::timestamp)::date as month from unnest(p_accounts, p_days) t(a, day)) t
    on d.ad_account_id = t.a and d.day >= t.month and d.day < (t.month + interval '1 month')::date
  group by d.ad_account_id, t.month, d.campaign_id;
$$;

-- A statement's written facts that hold (or held) declared numbers: their days summed anew.
create function declared_after_write() returns trigger language plpgsql as $$
declare
  v_accounts uuid[];
  v_days date[];
begin
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

create trigger declared_written_insert after insert on facts referencing new table as new_rows
  for each statement execute function declared_after_write();
create trigger declared_written_update after update on facts referencing old table as old_rows new table as new_rows
  for each statement execute function declared_after_write();
create trigger declared_written_delete after delete on facts referencing old table as old_rows
  for each statement execute function declared_after_write();

-- Facts that already hold declared numbers.
select rebuild_declared(array_agg(a), array_agg(d))
from (select distinct ad_account_id as a, day as d from facts where declared is not null) t
having count(*) > 0;
