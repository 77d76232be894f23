-- Segment :segment in the demo segment report :report of organization :org.
insert into report_segments (organization_id, report_id, segment_id) values (:org, :report, :segment) on conflict do nothing
