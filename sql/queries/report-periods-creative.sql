-- report-data-creative a period at a time (:video true: the video grouping): rows ordered by period, then by creative
-- name and id. As report-periods-total.sql for the period and :changedSince.
-- Parameters: as report-data-campaign's, and :interval (day, week or month) and :changedSince (null: every period).
-- Grouped by the order's own keys, so one sort serves both, as in report-data-creative.sql.
-- The integer columns are summed as doubles (exact below 2^53), as in report-data-creative.sql.
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum.
-- externalId is one creative's own (min of one value): grouping by it too made PostgreSQL sort the rows twice.
-- Each creative has a name, campaign and external id; read through report_creatives, PostgreSQL cannot tell.
-- client values: nameFilter
-- not null: creativeName, campaignId
select to_char(f.period, case when :interval = 'month' then 'YYYY-MM' else 'YYYY-MM-DD' end) as period,
       f.creative_id as "creativeId", cr.name as "creativeName", cr.campaign_id as "campaignId", min(cr.external_id) as "externalId",
       {{base: sum(f.%::float8) as % ;; money: case when count(*) = count(f.%) then sum(f.%) end as % ;; decimal: sum(f.%) as %}}
from report_creative_periods(:accountIds, :campaignIds, :from, :to, :currency, :interval, :changedSince) f
join report_creatives(:accountIds, :campaignIds) cr on cr.id = f.creative_id and (not :video::boolean or cr.format = 'video')
where :nameFilter::text is null or strpos(lower(cr.name), lower(:nameFilter)) > 0
group by f.period, cr.name, f.creative_id, cr.campaign_id
order by f.period, cr.name, f.creative_id
