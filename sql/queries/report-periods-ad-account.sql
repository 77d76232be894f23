-- report-data-ad-account a period at a time: rows ordered by period, then by account name and id. As
-- report-periods-total.sql for the period and $8.
-- Parameters: as report-data-campaign ($1 ad accounts, $2 campaigns, $3 from, $4 to, $5 report currency, $6 name
-- filter), then $7 the interval (day, week or month) and $8 the instant of changedSince (null: every period).
-- Days and weeks are read from the account-day rollups (migration 022), unless a segment report names campaigns.
-- The integer columns are summed as doubles (exact below 2^53), as in report-data-creative.sql.
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum.
select to_char(f.period, case when $7 = 'month' then 'YYYY-MM' else 'YYYY-MM-DD' end) as period,
       a.id as "adAccountId", a.name as "adAccountName", a.platform,
       {{base: sum(f.%::float8) as % ;; money: case when count(*) = count(f.%) then sum(f.%) end as % ;; decimal: sum(f.%) as %}}
from report_account_periods($1, $2, $3, $4, $5, $7, $8) f
join ad_accounts a on a.id = f.ad_account_id
where $6::text is null or strpos(lower(a.name), lower($6)) > 0
group by f.period, a.id
order by f.period, a.name, a.id
