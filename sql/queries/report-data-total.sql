-- Report data grouped as one total row (dimensions {}). Sums of the base metrics in the report's currency.
-- Columns: the grouping's dimension keys (docs/decisions.md §6), then the sums. Parameters: $1 ad accounts, $2 campaigns (null: all; segment reports), $3 from, $4 to, $5 report currency, $6 name filter (null: none).
-- The integer columns are summed as doubles (exact below 2^53), as in report-data-creative.sql.
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum.
select
       {{base: coalesce(sum(f.%::float8), 0) as % ;; money: case when count(*) = count(f.%) then coalesce(sum(f.%), 0) end as % ;; decimal: coalesce(sum(f.%), 0) as %}}
from report_account_facts($1, $2, $3, $4, $5) f
where $6::text is null
