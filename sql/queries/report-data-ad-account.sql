-- Report data grouped by ad account, ordered by account name, then id.
-- Columns: the grouping's dimension keys (docs/decisions.md §6), then the sums.
-- Parameters: :campaignIds null reads every campaign of :accountIds (a segment report names its own); the range is
-- :from to :to, in :currency; :nameFilter null filters no name.
-- The integer columns are summed as doubles (exact below 2^53), as in report-data-creative.sql.
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum.
-- Summed per account before the accounts' join, as report-data-campaign.sql and for its reason.
-- client values: nameFilter
select a.id as "adAccountId", a.name as "adAccountName", a.platform,
       {{base: f.%}}
from (
  select f.ad_account_id,
         {{base: sum(f.%::float8) as % ;; money: case when count(*) = count(f.%) then sum(f.%) end as % ;; decimal: sum(f.%) as %}}
  from report_account_facts(:accountIds, :campaignIds, :from, :to, :currency) f
  group by f.ad_account_id
) f
join ad_accounts a on a.id = f.ad_account_id
where :nameFilter::text is null or strpos(lower(a.name), lower(:nameFilter)) > 0
order by a.name, a.id
