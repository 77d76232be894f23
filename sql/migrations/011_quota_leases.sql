-- 011: quota leases. A busy client's charges can take a few units ahead, a lease, which its process then spends
-- without a round trip to PostgreSQL and gives back unspent within a quarter of a second (src/quota.ts).
--
-- A lease is charged like any other charge, under the same lock and into the same rows, so the window still never
-- passes the budget. It is sized here, where the standing is known, so that it never changes another charge's
-- verdict by more than its own few units:
-- - at most a 64th of what the window has left, so no lease is taken near the budget;
-- - at most a 64th of what the client has left before half the budget, so a leased client never passes half
--   through its lease, and the fair share (docs/decisions.md §4) decides exactly as without leases. A client past
--   half its budget, even the only one, is charged one request at a time.
-- A lease of fewer than two units is not worth its bookkeeping and is not taken, so a budget under 256 never has one.

-- The batch of 009 with, for each charge, the most units to lease for its client after it (0: none). The rules are
-- 009's, unchanged; a lease is taken only after a charge that went through.
create function charge_quota_leasing(p_org uuid, p_window timestamptz, p_clients text[], p_costs integer[], p_leases integer[])
returns table (outcome text, budget integer, used integer, leased integer)
language plpgsql as $$
declare
  n integer := coalesce(array_length(p_clients, 1), 0);
  v_budget integer;
  v_public_api boolean;
  v_locked boolean;
  v_used integer;
  v_inserted integer;
  c_ids text[];
  c_live boolean[];
  c_used integer[];
  c_added integer[];
  me integer;
  room boolean;
  lease integer;
begin
  if n <> coalesce(array_length(p_costs, 1), 0) or n <> coalesce(array_length(p_leases, 1), 0) then
    raise exception 'charge_quota_leasing: % clients, % costs, % leases', n, coalesce(array_length(p_costs, 1), 0),
      coalesce(array_length(p_leases, 1), 0);
  end if;
  select coalesce(s.budget_override, p.hourly_budget), p.public_api, s.locked into v_budget, v_public_api, v_locked
  from subscriptions s join plans p on p.code = s.plan_code
  where s.organization_id = p_org;
  if v_budget is null or not v_public_api or v_locked then
    return query select case when v_budget is null then 'no-subscription' when not v_public_api then 'no-api' else 'locked' end,
                        coalesce(v_budget, 0), 0, 0
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
  select w.used into v_used from quota_windows w
  where w.organization_id = p_org and w.window_start = p_window
  for update;

  select array_agg(c.id order by c.id), array_agg(c.revoked_at is null order by c.id),
         array_agg(coalesce(u.used, 0) order by c.id), array_agg(0 order by c.id)
  into c_ids, c_live, c_used, c_added
  from api_clients c
  left join quota_client_usage u on u.client_id = c.id and u.window_start = p_window
  where c.organization_id = p_org;

  for i in 1 .. n loop
    leased := 0;
    me := array_position(c_ids, p_clients[i]);
    if me is null or not c_live[me] then
      outcome := 'revoked';
    elsif v_used + p_costs[i] > v_budget then
      outcome := 'spent';
    else
      room := false;
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
        lease := least(p_leases[i], (v_budget - v_used) / 64, greatest(v_budget / 2 - c_used[me], 0) / 64);
        if lease >= 2 then
          leased := lease;
          v_used := v_used + lease;
          c_used[me] := c_used[me] + lease;
          c_added[me] := c_added[me] + lease;
        end if;
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

-- 009's batch is a batch that leases nothing, so the rules are written once; a process of an older version calls it
-- during a rolling upgrade.
create or replace function charge_quota_batch(p_org uuid, p_window timestamptz, p_clients text[], p_costs integer[])
returns table (outcome text, budget integer, used integer)
language sql as $$
  select l.outcome, l.budget, l.used
  from charge_quota_leasing(p_org, p_window, p_clients, p_costs, array_fill(0, array[coalesce(array_length(p_clients, 1), 0)])) l
$$;
