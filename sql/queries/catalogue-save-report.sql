-- Creates (when $2 is null) or changes organization $1's report $2: name $3, description $4, kind $5, currency $6,
-- metrics $7, groupings $8, ad accounts $9 (ids) and segments $10 (ids), and no others. Returns its id.
with saved as (
  insert into reports as r (id, organization_id, name, description, kind, currency, metrics, groupings)
  values (coalesce($2, gen_random_uuid()), $1, $3, $4, $5, $6, $7, $8)
  on conflict (id) do update set name = excluded.name, description = excluded.description, kind = excluded.kind,
    currency = excluded.currency, metrics = excluded.metrics, groupings = excluded.groupings, updated_at = now()
  returning id
), accounts_dropped as (
  delete from report_ad_accounts ra using saved where ra.report_id = saved.id and ra.ad_account_id <> all($9::uuid[])
), accounts_added as (
  insert into report_ad_accounts (organization_id, report_id, ad_account_id)
  select $1, saved.id, a from saved, unnest($9::uuid[]) a on conflict do nothing
), segments_dropped as (
  delete from report_segments rs using saved where rs.report_id = saved.id and rs.segment_id <> all($10::uuid[])
), segments_added as (
  insert into report_segments (organization_id, report_id, segment_id)
  select $1, saved.id, s from saved, unnest($10::uuid[]) s on conflict do nothing
)
select id from saved
