-- report-data-ad-account a period at a time: rows ordered by period, then by account name and id. As
-- report-periods-total.sql for the period and :changedSince.
-- Parameters: as report-data-campaign's, and :interval (day, week or month) and :changedSince (null: every period).
-- Days and weeks are read from the account-day rollups (migration 022), unless a segment report names campaigns.
-- The integer columns are summed as doubles (exact below 2^53), as in report-data-creative.sql.
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum.
-- client values: nameFilter
select to_char(f.period, case when :interval = 'month' then 'YYYY-MM' else 'YYYY-MM-DD' end) as period,
       a.id as "adAccountId", a.name as "adAccountName", a.platform,
       {{base: sum(f.%::float8) as % ;; money: case when count(*) = count(f.%) then sum(f.%) end as % ;; decimal: sum(f.%) as %}}
from report_account_periods(:accountIds, :campaignIds, :from, :to, :currency, :interval, :changedSince) f
join ad_accounts a on a.id = f.ad_account_id
where :nameFilter::text is null or strpos(lower(a.name), lower(:nameFilter)) > 0
group by f.period, a.id
order by f.period, a.name, a.id
