-- The declared base metrics' sums by campaign over the spans the built-in ones are kept over (migrations 028, 036):
-- 4 to 256 days and 1,024, aligned on their length, so a campaign answer over a long range reads a few spans of each
-- campaign and its edge days, not every day (BENCHMARKS.md, "Declared base metrics"). Each level is summed from the
-- one below (a span of 4 days from the days), as migration 041 sums the built-in ones' campaign spans.
create table declared_campaign_spans (
  ad_account_id uuid not null references ad_accounts (id) on delete cascade,
  level smallint not null,
  start date not null,
  campaign_id uuid not null,
  d1 double precision not null,
  d2 double precision not null,
  d3 double precision not null,
  d4 double precision not null,
  d5 double precision not null,
  d6 double precision not null,
  d7 double precision not null,
  d8 double precision not null,
  primary key (ad_account_id, level, start, campaign_id)
);

create function rebuild_declared_spans(p_accounts uuid[], p_days date[]) returns void language plpgsql as $$
declare
  v_level integer;
  v_below integer := 0;
begin
  foreach v_level in array array[2, 3, 4, 5, 6, 7, 8, 10] loop
    delete from declared_campaign_spans s
    using (select distinct t.a, span_start(v_level, t.day) as start from unnest(p_accounts, p_days) t(a, day)) t
    where s.ad_account_id = t.a and s.level = v_level and s.start = t.start;
    with spans as (
      select distinct t.a, span_start(v_level, t.day) as start from unnest(p_accounts, p_days) t(a, day)
    )
    insert into declared_campaign_spans (ad_account_id, level, start, campaign_id, d1, d2, d3, d4, d5, d6, d7, d8)
    select t.a, v_level, t.start, c.campaign_id, sum(c.d1), sum(c.d2), sum(c.d3), sum(c.d4), sum(c.d5), sum(c.d6), sum(c.d7), sum(c.d8)
    from spans t
    cross join lateral (
      select d.campaign_id, d1, d2, d3, d4, d5, d6, d7, d8 from declared_campaign_daily d
      where v_below = 0 and d.ad_account_id = t.a and d.day >= t.start and d.day < t.start + (1 << v_level)
      union all
      select s.campaign_id, d1, d2, d3, d4, d5, d6, d7, d8 from declared_campaign_spans s
      where v_below > 0 and s.ad_account_id = t.a and s.level = v_below
        and s.start >= t.start and s.start < t.start + (1 << v_level)
    ) c
    group by t.a, t.start, c.campaign_id;
    v_below := v_level;
  end loop;
end
$$;

-- The other sums of a write's days, then their spans.
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
    perform rebuild_declared_spans(v_accounts, v_days);
  end if;
  return null;
end
$$;

select rebuild_declared_spans(array_agg(a), array_agg(d))
from (select distinct ad_account_id as a, day as d from declared_campaign_daily) t
having count(*) > 0;

analyze declared_campaign_spans;
