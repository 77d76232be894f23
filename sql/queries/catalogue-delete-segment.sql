-- Deletes organization :org's segment :segment with its membership; the reports that named it are deleted in the same
-- apply.
with members as (
  delete from segment_campaigns where organization_id = :org and segment_id = :segment
), used as (
  delete from report_segments where organization_id = :org and segment_id = :segment
)
delete from segments where organization_id = :org and id = :segment
