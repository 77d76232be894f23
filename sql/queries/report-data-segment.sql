-- Report data grouped by segment: each of segments :segmentIds sums the facts of its member campaigns (a campaign in
-- two segments counts in both). Ordered by segment name, then id.
-- Columns: the grouping's dimension keys (docs/decisions.md §6), then the sums.
-- Parameters: :campaignIds null reads every campaign of :accountIds (a segment report names its own); the range is
-- :from to :to, in :currency; :nameFilter null filters no name.
-- The integer columns are summed as doubles (exact below 2^53), as in report-data-creative.sql.
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum:
-- a campaign's sum is null when one of its rows is, and a segment's when one of its campaigns' is.
-- Summed per campaign first, so the segments' join meets a row a campaign, not one a campaign and month or day.
-- client values: nameFilter
select s.id as "segmentId", s.name as "segmentName",
       {{base: sum(f.%) as % ;; money: case when count(*) = count(f.%) then sum(f.%) end as %}}
from (
  select f.campaign_id,
         {{base: sum(f.%::float8) as % ;; money: case when count(*) = count(f.%) then sum(f.%) end as % ;; decimal: sum(f.%) as %}}
  from report_campaign_spans(:accountIds, :campaignIds, :from, :to, :currency) f
  group by f.campaign_id
) f
join segment_campaigns sc on sc.campaign_id = f.campaign_id and sc.segment_id = any(:segmentIds::uuid[])
join segments s on s.id = sc.segment_id
where :nameFilter::text is null or strpos(lower(s.name), lower(:nameFilter)) > 0
group by s.id
order by s.name, s.id
