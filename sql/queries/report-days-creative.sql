-- report-periods-creative for interval=day (:video true: the video grouping): the same columns, rows and order. A
-- creative has one fact a day, so nothing is summed (as report-days-campaign.sql).
-- Parameters: as report-periods-creative (:interval is always 'day').
-- Money that cannot be converted (no rate on or before its day) is null in its own row.
-- Each creative has a name, campaign and external id; read through report_creatives, PostgreSQL cannot tell.
-- client values: nameFilter
-- not null: creativeName, campaignId, externalId
select to_char(f.period, 'YYYY-MM-DD') as period,
       f.creative_id as "creativeId", cr.name as "creativeName", cr.campaign_id as "campaignId", cr.external_id as "externalId",
       {{base: f.%::float8 as % ;; money: f.% ;; decimal: f.%}}
from report_creative_periods(:accountIds, :campaignIds, :from, :to, :currency, :interval, :changedSince) f
join report_creatives(:accountIds, :campaignIds) cr on cr.id = f.creative_id and (not :video::boolean or cr.format = 'video')
where :nameFilter::text is null or strpos(lower(cr.name), lower(:nameFilter)) > 0
order by f.period, cr.name, f.creative_id
