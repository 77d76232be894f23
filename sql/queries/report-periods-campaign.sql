-- report-data-campaign a period at a time: rows ordered by period, then by campaign name and id. As
-- report-periods-total.sql for the period and $8.
-- Parameters: as report-data-campaign ($1 ad accounts, $2 campaigns, $3 from, $4 to, $5 report currency, $6 name
-- filter), then $7 the interval (day, week or month) and $8 the instant of changedSince (null: every period).
-- The integer columns are summed as doubles (exact below 2^53), as in report-data-creative.sql.
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum.
select to_char(f.period, case when $7 = 'month' then 'YYYY-MM' else 'YYYY-MM-DD' end) as period,
       c.id as "campaignId", c.name as "campaignName", c.ad_account_id as "adAccountId", c.external_id as "externalId",
       {{base: sum(f.%::float8) as % ;; money: case when count(*) = count(f.%) then sum(f.%) end as % ;; decimal: sum(f.%) as %}}
from report_campaign_periods($1, $2, $3, $4, $5, $7, $8) f
join campaigns c on c.id = f.campaign_id
where $6::text is null or strpos(lower(c.name), lower($6)) > 0
group by f.period, c.id
order by f.period, c.name, c.id
