-- 009: the hot path of every metered request.
--
-- Charges in batches. Every charge of a subscription waits for its window row's lock, so charges made one at a time
-- would cost a round trip and a commit each, whatever the concurrency. A process sends the charges that queued up
-- while its previous batch ran as one call, and this applies them one after another, in the order given, exactly as
-- charge_quota would one by one: each its own outcome and standing, the budget and fair share checked for each, the
-- window never past its budget. One statement, so one transaction: all or none. It reads the window and the
-- subscription's clients once, decides every charge in memory, and writes once. The rules live here alone:
-- charge_quota, below, is a batch of one.
create function charge_quota_batch(p_org uuid, p_window timestamptz, p_clients text[], p_costs integer[])
returns table (outcome text, budget integer, used integer)
language plpgsql as $$
declare
  n integer := coalesce(array_length(p_clients, 1), 0);
  v_budget integer;
  v_public_api boolean;
  v_locked boolean;
  v_used integer;
  v_inserted integer;
  -- The subscription's clients: id, live (not revoked), charged in this window, charged by this batch.
  c_ids text[];
  c_live boolean[];
  c_used integer[];
  c_added integer[];
  me integer;
  room boolean;
begin
  if n <> coalesce(array_length(p_costs, 1), 0) then
    raise exception 'charge_quota_batch: % clients but % costs', n, coalesce(array_length(p_costs, 1), 0);
  end if;
  select coalesce(s.budget_override, p.hourly_budget), p.public_api, s.locked into v_budget, v_public_api, v_locked
  from subscriptions s join plans p on p.code = s.plan_code
  where s.organization_id = p_org;
  if v_budget is null or not v_public_api or v_locked then
    return query select case when v_budget is null then 'no-subscription' when not v_public_api then 'no-api' else 'locked' end,
                        coalesce(v_budget, 0), 0
                 from generate_series(1, n);
    return;
  end if;

  insert into quota_windows as w (organization_id, window_start, used) values (p_org, p_window, 0)
  on conflict do nothing;
  get diagnostics v_inserted = row_count;
  if v_inserted > 0 then
    delete from quota_windows w where w.organization_id = p_org and w.window_start < p_window - interval '1 day';
    delete from quota_client_usage u where u.organization_id = p_org and u.window_start < p_window - interval '1 day';
  end if;
  -- The same lock, taken first, as charge_quota and refund_quota: every charge of the subscription waits here.
  select w.used into v_used from quota_windows w
  where w.organization_id = p_org and w.window_start = p_window
  for update;

  -- Read under the lock, like charge_quota's revocation check: a revoked client is never charged.
  select array_agg(c.id order by c.id), array_agg(c.revoked_at is null order by c.id),
         array_agg(coalesce(u.used, 0) order by c.id), array_agg(0 order by c.id)
  into c_ids, c_live, c_used, c_added
  from api_clients c
  left join quota_client_usage u on u.client_id = c.id and u.window_start = p_window
  where c.organization_id = p_org;

  for i in 1 .. n loop
    me := array_position(c_ids, p_clients[i]);
    if me is null or not c_live[me] then
      outcome := 'revoked';
    elsif v_used + p_costs[i] > v_budget then
      outcome := 'spent';
    else
      room := false;
      -- Below half the budget the fair share cannot apply, so the other clients are only looked at past it.
      if (c_used[me] + p_costs[i]) * 2 > v_budget then
        for j in 1 .. coalesce(array_length(c_ids, 1), 0) loop
          if j <> me and c_live[j] and c_used[j] * 2 < v_budget then
            room := true;
            exit;
          end if;
        end loop;
      end if;
      if room then
        outcome := 'fair-share';
      else
        outcome := 'ok';
        v_used := v_used + p_costs[i];
        c_used[me] := c_used[me] + p_costs[i];
        c_added[me] := c_added[me] + p_costs[i];
      end if;
    end if;
    budget := v_budget;
    used := v_used;
    return next;
  end loop;

  update quota_windows w set used = v_used where w.organization_id = p_org and w.window_start = p_window;
  insert into quota_client_usage as u (organization_id, client_id, window_start, used)
  select p_org, c_ids[j], p_window, c_added[j] from generate_subscripts(c_ids, 1) j where c_added[j] > 0
  on conflict (client_id, window_start) do update set used = u.used + excluded.used;
end
$$;

-- A single charge is a batch of one, so the rules are written once. A process of an older version calls it during a
-- rolling upgrade, and gets the same answers.
create or replace function charge_quota(p_org uuid, p_client text, p_window timestamptz, p_cost integer)
returns table (outcome text, budget integer, used integer)
language sql as $$
  select b.outcome, b.budget, b.used from charge_quota_batch(p_org, p_window, array[p_client], array[p_cost]) b
$$;

-- Report definitions in PL/pgSQL. A SQL function that cannot be inlined (it returns one json built from subqueries)
-- is planned afresh on every call, most of the work of listing reports; a PL/pgSQL body keeps its plans for the life
-- of the connection. 005's body, unchanged.
create or replace function report_definition(r reports, p_accounts_all boolean, p_account_ids uuid[])
returns json
language plpgsql stable as $$
begin
  return json_build_object(
    'id', r.id, 'organizationId', r.organization_id, 'name', r.name, 'description', r.description,
    'kind', r.kind, 'currency', r.currency,
    'adAccountIds', coalesce((
      select json_agg(ra.ad_account_id order by ra.ad_account_id)
      from report_ad_accounts ra
      where ra.report_id = r.id and (p_accounts_all or ra.ad_account_id = any(p_account_ids))), '[]'),
    'segmentIds', coalesce((
      select json_agg(rs.segment_id order by rs.segment_id) from report_segments rs where rs.report_id = r.id), '[]'),
    'metrics', to_json(r.metrics), 'groupings', to_json(r.groupings),
    'createdAt', to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updatedAt', to_char(r.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
end
$$;

-- Refunds lock rows in charge_quota's order, the window first and then the client's usage: in the other order a
-- 304's refund and a concurrent charge would deadlock. Defined here, not by editing 003: an install that applied 003
-- keeps what it applied.
create or replace function refund_quota(p_org uuid, p_client text, p_window timestamptz, p_cost integer)
returns table (budget integer, used integer)
language plpgsql as $$
declare
  v_used integer;
  v_budget integer;
begin
  update quota_windows w set used = greatest(w.used - p_cost, 0)
  where w.organization_id = p_org and w.window_start = p_window
  returning w.used into v_used;
  update quota_client_usage u set used = greatest(u.used - p_cost, 0)
  where u.client_id = p_client and u.window_start = p_window;
  select coalesce(s.budget_override, p.hourly_budget) into v_budget
  from subscriptions s join plans p on p.code = s.plan_code
  where s.organization_id = p_org;
  return query select v_budget, v_used;
end
$$;
