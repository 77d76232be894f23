-- Deletes organization $1's segment $2 with its membership; the reports that named it are deleted in the same apply.
with members as (
  delete from segment_campaigns where organization_id = $1 and segment_id = $2
), used as (
  delete from report_segments where organization_id = $1 and segment_id = $2
)
delete from segments where organization_id = $1 and id = $2
