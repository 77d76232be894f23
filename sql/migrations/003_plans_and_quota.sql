-- 003: plans, one subscription per organization, and the hourly quota (docs/decisions.md §3, §4).

create table plans (
  code text primary key,
  name text not null,
  public_api boolean not null,
  conversion_metrics boolean not null,
  hourly_budget integer not null check (hourly_budget >= 0)
);

insert into plans (code, name, public_api, conversion_metrics, hourly_budget) values
  ('starter', 'Starter', false, false, 0),
  ('growth', 'Growth', false, true, 0),
  ('business', 'Business', true, false, 1000),
  ('enterprise', 'Enterprise', true, true, 10000);

create table subscriptions (
  organization_id uuid primary key references organizations (id),
  plan_code text not null references plans (code),
  locked boolean not null default false,
  -- Replaces the plan's hourly budget when set.
  budget_override integer check (budget_override >= 0),
  updated_at timestamptz not null default now()
);

-- One row per subscription and UTC hour: what was charged in that window.
create table quota_windows (
  organization_id uuid not null references organizations (id),
  window_start timestamptz not null,
  used integer not null default 0,
  primary key (organization_id, window_start)
);

-- What each client charged in a window, for the fair share rule.
create table quota_client_usage (
  organization_id uuid not null references organizations (id),
  client_id text not null references api_clients (id),
  window_start timestamptz not null,
  used integer not null default 0,
  primary key (client_id, window_start)
);

-- Charges a call atomically. The window row is locked first, so charges of one subscription are serialised
-- across every connection and process, and a window never passes its budget.
-- outcome: 'ok', 'spent' (budget), 'fair-share' (50 % while another client has room), 'revoked', 'no-subscription',
-- and, read fresh here so an operator's change applies to the very next call, 'no-api' and 'locked'.
create function charge_quota(p_org uuid, p_client text, p_window timestamptz, p_cost integer)
returns table (outcome text, budget integer, used integer)
language plpgsql as $$
declare
  v_budget integer;
  v_public_api boolean;
  v_locked boolean;
  v_used integer;
  v_mine integer;
  v_live boolean;
  v_inserted integer;
begin
  select coalesce(s.budget_override, p.hourly_budget), p.public_api, s.locked into v_budget, v_public_api, v_locked
  from subscriptions s join plans p on p.code = s.plan_code
  where s.organization_id = p_org;
  if v_budget is null then
    return query select 'no-subscription'::text, 0, 0;
    return;
  end if;
  if not v_public_api then
    return query select 'no-api'::text, v_budget, 0;
    return;
  end if;
  if v_locked then
    return query select 'locked'::text, v_budget, 0;
    return;
  end if;

  insert into quota_windows as w (organization_id, window_start, used) values (p_org, p_window, 0)
  on conflict do nothing;
  get diagnostics v_inserted = row_count;
  if v_inserted > 0 then
    -- A new hour: the bookkeeping of the hours before it is not needed.
    delete from quota_windows w where w.organization_id = p_org and w.window_start < p_window - interval '1 day';
    delete from quota_client_usage u where u.organization_id = p_org and u.window_start < p_window - interval '1 day';
  end if;
  select w.used into v_used from quota_windows w
  where w.organization_id = p_org and w.window_start = p_window
  for update;

  -- Revocation is re-checked here, under the lock, so a revoked client is never served a metered answer.
  select c.revoked_at is null into v_live from api_clients c where c.id = p_client and c.organization_id = p_org;
  if v_live is distinct from true then
    return query select 'revoked'::text, v_budget, v_used;
    return;
  end if;

  if v_used + p_cost > v_budget then
    return query select 'spent'::text, v_budget, v_used;
    return;
  end if;

  select u.used into v_mine from quota_client_usage u where u.client_id = p_client and u.window_start = p_window;
  v_mine := coalesce(v_mine, 0);
  if (v_mine + p_cost) * 2 > v_budget and exists (
    select 1
    from api_clients c
    left join quota_client_usage u on u.client_id = c.id and u.window_start = p_window
    where c.organization_id = p_org and c.id <> p_client and c.revoked_at is null
      and coalesce(u.used, 0) * 2 < v_budget
  ) then
    return query select 'fair-share'::text, v_budget, v_used;
    return;
  end if;

  update quota_windows w set used = w.used + p_cost
  where w.organization_id = p_org and w.window_start = p_window;
  insert into quota_client_usage as u (organization_id, client_id, window_start, used)
  values (p_org, p_client, p_window, p_cost)
  on conflict (client_id, window_start) do update set used = u.used + excluded.used;
  return query select 'ok'::text, v_budget, v_used + p_cost;
end
$$;

-- Gives back a charge (a 304 costs nothing). Returns the window's budget and what is used after the refund.
create function refund_quota(p_org uuid, p_client text, p_window timestamptz, p_cost integer)
returns table (budget integer, used integer)
language plpgsql as $$
begin
  update quota_client_usage u set used = greatest(u.used - p_cost, 0)
  where u.client_id = p_client and u.window_start = p_window;
  return query
  update quota_windows w set used = greatest(w.used - p_cost, 0)
  from subscriptions s join plans p on p.code = s.plan_code
  where w.organization_id = p_org and w.window_start = p_window and s.organization_id = p_org
  returning coalesce(s.budget_override, p.hourly_budget), w.used;
end
$$;
