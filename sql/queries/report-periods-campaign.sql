-- report-data-campaign a period at a time: rows ordered by period, then by campaign name and id. As
-- report-periods-total.sql for the period and :changedSince.
-- Parameters: as report-data-campaign's, and :interval (day, week or month) and :changedSince (null: every period).
-- The integer columns are summed as doubles (exact below 2^53), as in report-data-creative.sql.
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum.
-- client values: nameFilter
select to_char(f.period, case when :interval = 'month' then 'YYYY-MM' else 'YYYY-MM-DD' end) as period,
       c.id as "campaignId", c.name as "campaignName", c.ad_account_id as "adAccountId", c.external_id as "externalId",
       {{base: sum(f.%::float8) as % ;; money: case when count(*) = count(f.%) then sum(f.%) end as % ;; decimal: sum(f.%) as %}}
from report_campaign_periods(:accountIds, :campaignIds, :from, :to, :currency, :interval, :changedSince) f
join campaigns c on c.id = f.campaign_id
where :nameFilter::text is null or strpos(lower(c.name), lower(:nameFilter)) > 0
group by f.period, c.id
order by f.period, c.name, c.id
