-- report-periods-campaign for interval=day: the same columns, rows and order. A campaign has one row a day in the
-- daily rollups (report_campaign_days), so nothing is summed: grouping 800,000 rows that are groups already was a
-- third of a 400-day answer's time (BENCHMARKS.md).
-- Parameters: as report-periods-campaign (:interval is always 'day').
-- Money that cannot be converted (no rate on or before its day) is null in its own row.
-- client values: nameFilter
select to_char(f.period, 'YYYY-MM-DD') as period,
       c.id as "campaignId", c.name as "campaignName", c.ad_account_id as "adAccountId", c.external_id as "externalId",
       {{base: f.%::float8 as % ;; money: f.% ;; decimal: f.%}}
from report_campaign_periods(:accountIds, :campaignIds, :from, :to, :currency, :interval, :changedSince) f
join campaigns c on c.id = f.campaign_id
where :nameFilter::text is null or strpos(lower(c.name), lower(:nameFilter)) > 0
order by f.period, c.name, c.id
