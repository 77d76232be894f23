-- Report data grouped as one total row (dimensions {}). Sums of the base metrics in the report's currency.
-- Columns: the grouping's dimension keys (docs/decisions.md §6), then the sums. Parameters: $1 ad accounts, $2 campaigns (null: all; segment reports), $3 from, $4 to, $5 report currency, $6 name filter (null: none).
-- The integer columns are summed as doubles (exact below 2^53), as in report-data-creative.sql.
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum.
select
       coalesce(sum(f.impressions::float8), 0) as impressions, coalesce(sum(f.clicks::float8), 0) as clicks,
       case when count(*) = count(f.spend) then coalesce(sum(f.spend), 0) end as spend, coalesce(sum(f.conversions), 0) as conversions,
       case when count(*) = count(f.conversion_value) then coalesce(sum(f.conversion_value), 0) end as conversion_value, coalesce(sum(f.video_views::float8), 0) as video_views,
       coalesce(sum(f.video_completions::float8), 0) as video_completions
from report_account_facts($1, $2, $3, $4, $5) f
where $6::text is null
