-- 018: deleting an organization and everything it owns (readout org delete, readout demo --remove). Its clients'
-- ids stay behind as tombstones, so every process's list of revoked clients still names them once their rows are
-- gone: their tokens stop within a second (docs/decisions.md §9), as a revoked client's do.
create table deleted_clients (
  id text primary key,
  deleted_at timestamptz not null default now()
);

-- Children before parents, in one call; the report version triggers fire on the way, and the organization's version
-- row goes with it (on delete cascade). Returns the clients and fact rows deleted.
create function delete_organization(p_org uuid) returns table (clients integer, fact_rows bigint)
language plpgsql as $$
declare
  v_clients integer;
  v_facts bigint;
begin
  insert into deleted_clients (id) select id from api_clients where organization_id = p_org on conflict do nothing;
  select count(*) into v_clients from api_clients where organization_id = p_org;
  delete from facts where organization_id = p_org;
  get diagnostics v_facts = row_count;
  delete from facts_monthly where organization_id = p_org;
  delete from facts_campaign_daily where organization_id = p_org;
  delete from facts_campaign_monthly where organization_id = p_org;
  delete from report_segments where organization_id = p_org;
  delete from report_ad_accounts where organization_id = p_org;
  delete from segment_campaigns where organization_id = p_org;
  delete from reports where organization_id = p_org;
  delete from segments where organization_id = p_org;
  delete from custom_metrics where organization_id = p_org;
  delete from creatives where organization_id = p_org;
  delete from campaigns where organization_id = p_org;
  delete from ad_accounts where organization_id = p_org;
  delete from quota_client_usage where organization_id = p_org;
  delete from quota_windows where organization_id = p_org;
  delete from client_secrets where organization_id = p_org;
  delete from api_clients where organization_id = p_org;
  delete from subscriptions where organization_id = p_org;
  delete from organizations where id = p_org;
  return query select v_clients, v_facts;
end
$$;
