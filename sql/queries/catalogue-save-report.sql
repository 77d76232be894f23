-- Creates (when :id is null) or changes organization :org's report :id: name :name, description :description, kind
-- :kind, currency :currency, metrics :metrics, groupings :groupings, ad accounts :adAccounts (ids) and segments
-- :segments (ids), and no others. Returns its id.
with saved as (
  insert into reports as r (id, organization_id, name, description, kind, currency, metrics, groupings)
  values (coalesce(:id, gen_random_uuid()), :org, :name, :description, :kind, :currency, :metrics, :groupings)
  on conflict (id) do update set name = excluded.name, description = excluded.description, kind = excluded.kind,
    currency = excluded.currency, metrics = excluded.metrics, groupings = excluded.groupings, updated_at = now()
  returning id
), accounts_dropped as (
  delete from report_ad_accounts ra using saved where ra.report_id = saved.id and ra.ad_account_id <> all(:adAccounts::uuid[])
), accounts_added as (
  insert into report_ad_accounts (organization_id, report_id, ad_account_id)
  select :org, saved.id, a from saved, unnest(:adAccounts::uuid[]) a on conflict do nothing
), segments_dropped as (
  delete from report_segments rs using saved where rs.report_id = saved.id and rs.segment_id <> all(:segments::uuid[])
), segments_added as (
  insert into report_segments (organization_id, report_id, segment_id)
  select :org, saved.id, s from saved, unnest(:segments::uuid[]) s on conflict do nothing
)
select id from saved
