-- Report data grouped by ad account, ordered by account name, then id.
-- Columns: the grouping's dimension keys (docs/decisions.md §6), then the sums. Parameters: $1 ad accounts, $2 campaigns (null: all; segment reports), $3 from, $4 to, $5 report currency, $6 name filter (null: none).
-- The integer columns are summed as doubles (exact below 2^53), as in report-data-creative.sql.
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum.
-- Summed per account before the accounts' join, as report-data-campaign.sql and for its reason.
select a.id as "adAccountId", a.name as "adAccountName", a.platform,
       {{base: f.%}}
from (
  select f.ad_account_id,
         {{base: sum(f.%::float8) as % ;; money: case when count(*) = count(f.%) then sum(f.%) end as % ;; decimal: sum(f.%) as %}}
  from report_account_facts($1, $2, $3, $4, $5) f
  group by f.ad_account_id
) f
join ad_accounts a on a.id = f.ad_account_id
where $6::text is null or strpos(lower(a.name), lower($6)) > 0
order by a.name, a.id
