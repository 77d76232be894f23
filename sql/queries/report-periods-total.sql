-- report-data-total a period at a time (docs/decisions.md §6, interval): a row per period of :interval that has
-- facts, in period order; with :changedSince, only the periods in which a fact in scope was written after it. The
-- period's first day is the `period` column (YYYY-MM for months), which query.ts names after the interval.
-- Parameters: as report-data-campaign's, and :interval (day, week or month) and :changedSince (null: every period).
-- Days and weeks are read from the account-day rollups (migration 022), unless a segment report names campaigns.
-- The integer columns are summed as doubles (exact below 2^53), as in report-data-creative.sql.
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum.
-- client values: nameFilter
select to_char(f.period, case when :interval = 'month' then 'YYYY-MM' else 'YYYY-MM-DD' end) as period,
       {{base: sum(f.%::float8) as % ;; money: case when count(*) = count(f.%) then sum(f.%) end as % ;; decimal: sum(f.%) as %}}
from report_account_periods(:accountIds, :campaignIds, :from, :to, :currency, :interval, :changedSince) f
where :nameFilter::text is null
group by f.period
order by f.period
