-- Deletes organization $1's report $2, and takes it off its clients' allow-lists (they keep their other entries).
with accounts as (
  delete from report_ad_accounts where organization_id = $1 and report_id = $2
), segments as (
  delete from report_segments where organization_id = $1 and report_id = $2
), allowed as (
  update api_clients set report_ids = array_remove(report_ids, $2::uuid)
  where organization_id = $1 and $2::uuid = any(report_ids)
)
delete from reports where organization_id = $1 and id = $2
