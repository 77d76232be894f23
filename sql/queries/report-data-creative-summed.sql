-- report-data-creative from four days on: the same columns, rows and order, read from the creatives' spans (a range of
-- four days or more can hold one) and summed per creative before they meet creatives, one row a creative instead of
-- one a day (BENCHMARKS.md, "Spans"). Under four days a range is single days either way. query.ts picks by range.
-- The creatives are the report's accounts', hashed (migration 035).
-- Parameters: as report-data-creative.
-- The integer columns are summed as doubles (exact below 2^53), as in report-data-creative.sql.
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum.
-- Each creative has a name, campaign and external id; read through report_creatives, PostgreSQL cannot tell.
-- client values: nameFilter
-- not null: creativeId, creativeName, campaignId, externalId
select cr.id as "creativeId", cr.name as "creativeName", cr.campaign_id as "campaignId", cr.external_id as "externalId",
       {{base: s.%}}
from (
  select f.creative_id,
         {{base: sum(f.%::float8) as % ;; money: case when count(*) = count(f.%) then sum(f.%) end as % ;; decimal: sum(f.%) as %}}
  from report_creative_spans(:accountIds, :campaignIds, :from, :to, :currency) f
  group by f.creative_id
) s
join report_creatives(:accountIds, :campaignIds) cr on cr.id = s.creative_id and (not :video::boolean or cr.format = 'video')
where :nameFilter::text is null or strpos(lower(cr.name), lower(:nameFilter)) > 0
order by cr.name, cr.id
