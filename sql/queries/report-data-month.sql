-- Report data grouped by calendar month (YYYY-MM), ascending.
-- Columns: the grouping's dimension keys (docs/decisions.md §6), then the sums.
-- Parameters: :campaignIds null reads every campaign of :accountIds (a segment report names its own); the range is
-- :from to :to, in :currency; :nameFilter null filters no name.
-- The integer columns are summed as doubles (exact below 2^53), as in report-data-creative.sql.
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum.
-- client values: nameFilter
select to_char(date_trunc('month', f.day), 'YYYY-MM') as month,
       {{base: sum(f.%::float8) as % ;; money: case when count(*) = count(f.%) then sum(f.%) end as % ;; decimal: sum(f.%) as %}}
from report_account_facts(:accountIds, :campaignIds, :from, :to, :currency) f
where :nameFilter::text is null
group by date_trunc('month', f.day)
order by date_trunc('month', f.day)
