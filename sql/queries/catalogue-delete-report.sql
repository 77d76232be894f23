-- Deletes organization :org's report :report, and takes it off its clients' allow-lists (they keep their other
-- entries).
with accounts as (
  delete from report_ad_accounts where organization_id = :org and report_id = :report
), segments as (
  delete from report_segments where organization_id = :org and report_id = :report
), allowed as (
  update api_clients set report_ids = array_remove(report_ids, :report::uuid)
  where organization_id = :org and :report::uuid = any(report_ids)
)
delete from reports where organization_id = :org and id = :report
