-- Report data grouped by ad account, ordered by account name, then id.
-- Columns: the grouping's dimension keys (docs/decisions.md §6), then the sums. Parameters: $1 ad accounts, $2 campaigns (null: all; segment reports), $3 from, $4 to, $5 report currency, $6 name filter (null: none).
-- The integer columns are summed as doubles (exact below 2^53), as in report-data-creative.sql.
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum.
-- Summed per account before the accounts' join, as report-data-campaign.sql and for its reason.
select a.id as "adAccountId", a.name as "adAccountName", a.platform,
       f.impressions, f.clicks, f.spend, f.conversions, f.conversion_value, f.video_views, f.video_completions
from (
  select f.ad_account_id,
         sum(f.impressions::float8) as impressions, sum(f.clicks::float8) as clicks, case when count(*) = count(f.spend) then sum(f.spend) end as spend,
         sum(f.conversions) as conversions, case when count(*) = count(f.conversion_value) then sum(f.conversion_value) end as conversion_value,
         sum(f.video_views::float8) as video_views, sum(f.video_completions::float8) as video_completions
  from report_account_facts($1, $2, $3, $4, $5) f
  group by f.ad_account_id
) f
join ad_accounts a on a.id = f.ad_account_id
where $6::text is null or strpos(lower(a.name), lower($6)) > 0
order by a.name, a.id
