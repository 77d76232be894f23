-- Report data grouped by calendar month (YYYY-MM), ascending.
-- Columns: the grouping's dimension keys (docs/decisions.md §6), then the sums. Parameters: $1 ad accounts, $2 campaigns (null: all; segment reports), $3 from, $4 to, $5 report currency, $6 name filter (null: none).
-- The integer columns are summed as doubles (exact below 2^53), as in report-data-creative.sql.
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum.
select to_char(date_trunc('month', f.day), 'YYYY-MM') as month,
       {{base: sum(f.%::float8) as % ;; money: case when count(*) = count(f.%) then sum(f.%) end as % ;; decimal: sum(f.%) as %}}
from report_account_facts($1, $2, $3, $4, $5) f
where $6::text is null
group by date_trunc('month', f.day)
order by date_trunc('month', f.day)
