-- report-data-creative a period at a time ($9 true: the video grouping): rows ordered by period, then by creative
-- name and id. As report-periods-total.sql for the period and $8.
-- Parameters: as report-data-campaign ($1 ad accounts, $2 campaigns, $3 from, $4 to, $5 report currency, $6 name
-- filter), then $7 the interval (day, week or month) and $8 the instant of changedSince (null: every period).
-- Grouped by the order's own keys, so one sort serves both, as in report-data-creative.sql.
-- The integer columns are summed as doubles (exact below 2^53), as in report-data-creative.sql.
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum.
-- externalId is one creative's own (min of one value): grouping by it too made PostgreSQL sort the rows twice.
-- Each creative has a name, campaign and external id; read through report_creatives, PostgreSQL cannot tell.
-- not null: creativeName, campaignId
select to_char(f.period, case when $7 = 'month' then 'YYYY-MM' else 'YYYY-MM-DD' end) as period,
       f.creative_id as "creativeId", cr.name as "creativeName", cr.campaign_id as "campaignId", min(cr.external_id) as "externalId",
       {{base: sum(f.%::float8) as % ;; money: case when count(*) = count(f.%) then sum(f.%) end as % ;; decimal: sum(f.%) as %}}
from report_creative_periods($1, $2, $3, $4, $5, $7, $8) f
join report_creatives($1, $2) cr on cr.id = f.creative_id and (not $9::boolean or cr.format = 'video')
where $6::text is null or strpos(lower(cr.name), lower($6)) > 0
group by f.period, cr.name, f.creative_id, cr.campaign_id
order by f.period, cr.name, f.creative_id
