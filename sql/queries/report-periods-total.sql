-- report-data-total a period at a time (docs/decisions.md §6, interval): a row per period of interval $7 that has facts, in
-- period order; with $8, only the periods in which a fact in scope was written after it. The period's first day is
-- the `period` column (YYYY-MM for months), which query.ts names after the interval.
-- Parameters: as report-data-campaign ($1 ad accounts, $2 campaigns, $3 from, $4 to, $5 report currency, $6 name
-- filter), then $7 the interval (day, week or month) and $8 the instant of changedSince (null: every period).
-- Days and weeks are read from the account-day rollups (migration 022), unless a segment report names campaigns.
-- The integer columns are summed as doubles (exact below 2^53), as in report-data-creative.sql.
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum.
select to_char(f.period, case when $7 = 'month' then 'YYYY-MM' else 'YYYY-MM-DD' end) as period,
       {{base: sum(f.%::float8) as % ;; money: case when count(*) = count(f.%) then sum(f.%) end as % ;; decimal: sum(f.%) as %}}
from report_account_periods($1, $2, $3, $4, $5, $7, $8) f
where $6::text is null
group by f.period
order by f.period
