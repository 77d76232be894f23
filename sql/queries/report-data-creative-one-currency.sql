-- report-data-creative for the accounts in the report's currency (:currency): the same columns, rows and order, read
-- from facts directly. query.ts takes it when every account read is in that currency, so no money needs converting.
-- Parameters: as report-data-creative.
-- With no conversion to join in, what is left is one join, one sort and the sums, which PostgreSQL can share among
-- parallel workers; report_facts (006, 007) cannot be, its CTEs and its rate function keep it in one process. The
-- first row comes sooner, and the CSV export, whose server has nothing to write until then, finishes that much sooner
-- (BENCHMARKS.md, "One-currency creative exports"). A range this short holds no
-- whole month, so report_facts' monthly rollup would add nothing.
-- Grouped and summed as report-data-creative is, for the reasons given there.
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum.
-- externalId is one creative's own (min of one value): grouping by it too made PostgreSQL sort the rows twice.
-- client values: nameFilter
select f.creative_id as "creativeId", cr.name as "creativeName", cr.campaign_id as "campaignId", min(cr.external_id) as "externalId",
       {{base: sum(f.%::float8) as % ;; money: case when count(*) = count(f.%) then sum(f.%) end as % ;; decimal: sum(f.%) as %}}
from facts f
join creatives cr on cr.id = f.creative_id and (not :video::boolean or cr.format = 'video')
where f.ad_account_id = any(array(select a.id from ad_accounts a where a.id = any(:accountIds) and a.currency = :currency))
  and f.day between :from and :to and (:campaignIds::uuid[] is null or f.campaign_id = any(:campaignIds))
  and (:nameFilter::text is null or strpos(lower(cr.name), lower(:nameFilter)) > 0)
group by cr.name, f.creative_id, cr.campaign_id
order by cr.name, f.creative_id
