-- Segment $3 in the demo segment report $2 of organization $1.
insert into report_segments (organization_id, report_id, segment_id) values ($1, $2, $3) on conflict do nothing
