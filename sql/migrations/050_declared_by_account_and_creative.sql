-- The declared base metrics' sums (migration 048) also by account, by day and by month, and by creative and month:
-- a total, month or ad-account answer reads an account's days and months, not its campaigns', and a creative answer
-- a whole month of a creative from one row, not from its days' facts (BENCHMARKS.md, "Declared base metrics").
create table declared_account_daily (
  ad_account_id uuid not null references ad_accounts (id) on delete cascade,
  day date not null,
  d1 double precision not null,
  d2 double precision not null,
  d3 double precision not null,
  d4 double precision not null,
  d5 double precision not null,
  d6 double precision not null,
  d7 double precision not null,
  d8 double precision not null,
  primary key (ad_account_id, day)
);

create table declared_account_monthly (
  ad_account_id uuid not null references ad_accounts (id) on delete cascade,
  month date not null,
  d1 double precision not null,
  d2 double precision not null,
  d3 double precision not null,
  d4 double precision not null,
  d5 double precision not null,
  d6 double precision not null,
  d7 double precision not null,
  d8 double precision not null,
  primary key (ad_account_id, month)
);

create table declared_creative_monthly (
  ad_account_id uuid not null references ad_accounts (id) on delete cascade,
  month date not null,
  creative_id uuid not null,
  campaign_id uuid not null,
  d1 double precision not null,
  d2 double precision not null,
  d3 double precision not null,
  d4 double precision not null,
  d5 double precision not null,
  d6 double precision not null,
  d7 double precision not null,
  d8 double precision not null,
  primary key (ad_account_id, month, creative_id)
);

-- The sums of the given accounts' days, and of the months that hold them, written anew: the campaigns' from the facts,
-- the accounts' from the campaigns', the creatives' months from the facts.
create or replace function rebuild_declared(p_accounts uuid[], p_days date[]) returns void language sql as $$
  delete from declared_campaign_daily d
  using (select distinct a, day from unnest(p_accounts, p_days) t(a, day)) t
  where d.ad_account_id = t.a and d.day = t.day;
  insert into declared_campaign_daily (ad_account_id, day, campaign_id, d1, d2, d3, d4, d5, d6, d7, d8)
  select f.ad_account_id, f.day, f.campaign_id, sum(coalesce(f.declared[1], 0)), sum(coalesce(f.declared[2], 0)), sum(coalesce(f.declared[3], 0)), sum(coalesce(f.declared[4], 0)), sum(coalesce(f.declared[5], 0)), sum(coalesce(f.declared[6], 0)), sum(coalesce(f.declared[7], 0)), sum(coalesce(f.declared[8], 0))
  from facts f
  join (select distinct a, day from unnest(p_accounts, p_days) t(a, day)) t on f.ad_account_id = t.a and f.day = t.day
  where f.declared is not null
  group by f.ad_account_id, f.day, f.campaign_id;
  delete from declared_account_daily d
  using (select distinct a, day from unnest(p_accounts, p_days) t(a, day)) t
  where d.ad_account_id = t.a and d.day = t.day;
  insert into declared_account_daily (ad_account_id, day, d1, d2, d3, d4, d5, d6, d7, d8)
  select d.ad_account_id, d.day, sum(d.d1), sum(d.d2), sum(d.d3), sum(d.d4), sum(d.d5), sum(d.d6), sum(d.d7), sum(d.d8)
  from declared_campaign_daily d
  join (select distinct a, day from unnest(p_accounts, p_days) t(a, day)) t on d.ad_account_id = t.a and d.day = t.day
  group by d.ad_account_id, d.day;
  delete from declared_campaign_monthly m
  using (select distinct a, date_trunc('month', day::timestamp)::date as month from unnest(p_accounts, p_days) t(a, day)) t
  where m.ad_account_id = t.a and m.month = t.month;
  insert into declared_campaign_monthly (ad_account_id, month, campaign_id, d1, d2, d3, d4, d5, d6, d7, d8)
  select d.ad_account_id, t.month, d.campaign_id, sum(d.d1), sum(d.d2), sum(d.d3), sum(d.d4), sum(d.d5), sum(d.d6), sum(d.d7), sum(d.d8)
  from declared_campaign_daily d
  join (select distinct a, date_trunc('month', day::timestamp)::date as month from unnest(p_accounts, p_days) t(a, day)) t
    on d.ad_account_id = t.a and d.day >= t.month and d.day < (t.month + interval '1 month')::date
  group by d.ad_account_id, t.month, d.campaign_id;
  delete from declared_account_monthly m
  using (select distinct a, date_trunc('month', day::timestamp)::date as month from unnest(p_accounts, p_days) t(a, day)) t
  where m.ad_account_id = t.a and m.month = t.month;
  insert into declared_account_monthly (ad_account_id, month, d1, d2, d3, d4, d5, d6, d7, d8)
  select d.ad_account_id, t.month, sum(d.d1), sum(d.d2), sum(d.d3), sum(d.d4), sum(d.d5), sum(d.d6), sum(d.d7), sum(d.d8)
  from declared_account_daily d
  join (select distinct a, date_trunc('month', day::timestamp)::date as month from unnest(p_accounts, p_days) t(a, day)) t
    on d.ad_account_id = t.a and d.day >= t.month and d.day < (t.month + interval '1 month')::date
  group by d.ad_account_id, t.month;
  delete from declared_creative_monthly m
  using (select distinct a, date_trunc('month', day::timestamp)::date as month from unnest(p_accounts, p_days) t(a, day)) t
  where m.ad_account_id = t.a and m.month = t.month;
  insert into declared_creative_monthly (ad_account_id, month, creative_id, campaign_id, d1, d2, d3, d4, d5, d6, d7, d8)
  select f.ad_account_id, t.month, f.creative_id, min(f.campaign_id::text)::uuid, sum(coalesce(f.declared[1], 0)), sum(coalesce(f.declared[2], 0)), sum(coalesce(f.declared[3], 0)), sum(coalesce(f.declared[4], 0)), sum(coalesce(f.declared[5], 0)), sum(coalesce(f.declared[6], 0)), sum(coalesce(f.declared[7], 0)), sum(coalesce(f.declared[8], 0))
  from facts f
  join (select distinct a, date_trunc('month', day::timestamp)::date as month from unnest(p_accounts, p_days) t(a, day)) t
    on f.ad_account_id = t.a and f.day >= t.month and f.day < (t.month + interval '1 month')::date
  where f.declared is not null
  group by f.ad_account_id, t.month, f.creative_id;
$$;

-- The sums of the facts that already hold declared numbers.
select rebuild_declared(array_agg(a), array_agg(d))
from (select distinct ad_account_id as a, day as d from facts where declared is not null) t
having count(*) > 0;
