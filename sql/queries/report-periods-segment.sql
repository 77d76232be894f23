-- report-data-segment a period at a time (segments :segmentIds): rows ordered by period, then by segment name and
-- id. As report-periods-total.sql for the period and :changedSince.
-- Parameters: as report-data-campaign's, and :interval (day, week or month) and :changedSince (null: every period).
-- The integer columns are summed as doubles (exact below 2^53), as in report-data-creative.sql.
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum.
-- client values: nameFilter
select to_char(f.period, case when :interval = 'month' then 'YYYY-MM' else 'YYYY-MM-DD' end) as period,
       s.id as "segmentId", s.name as "segmentName",
       {{base: sum(f.%::float8) as % ;; money: case when count(*) = count(f.%) then sum(f.%) end as % ;; decimal: sum(f.%) as %}}
from report_campaign_periods(:accountIds, :campaignIds, :from, :to, :currency, :interval, :changedSince) f
join segment_campaigns sc on sc.campaign_id = f.campaign_id and sc.segment_id = any(:segmentIds::uuid[])
join segments s on s.id = sc.segment_id
where :nameFilter::text is null or strpos(lower(s.name), lower(:nameFilter)) > 0
group by f.period, s.id
order by f.period, s.name, s.id
