-- Report data grouped by creative (the video grouping: :video true keeps only creatives whose format is video),
-- ordered by creative name, then id.
-- Columns: the grouping's dimension keys (docs/decisions.md §6), then the sums.
-- Parameters: :campaignIds null reads every campaign of :accountIds (a segment report names its own); the range is
-- :from to :to, in :currency; :nameFilter null filters no name.
-- Grouped by the order's own keys (f.creative_id is cr.id; name and campaign follow from it), so one sort serves both
-- the grouping and the order. Grouped by cr.id, PostgreSQL sorted twice (by id to sum, then by name; BENCHMARKS.md,
-- "One sort for creatives"). Grouping by (cr.name, cr.id) would not do: PostgreSQL
-- drops the other columns of a grouping that holds a table's primary key, and sorts twice again.
-- The integer columns are summed as doubles, exact below 2^53: sum() of a bigint is a numeric, which becomes a double
-- only by way of its text (BENCHMARKS.md, "Sums as doubles").
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum.
-- externalId is one creative's own (min of one value): grouping by it too made PostgreSQL sort the rows twice.
-- The creatives are the report's accounts', hashed (migration 035); read through a function, PostgreSQL cannot tell
-- they have names and campaigns.
-- client values: nameFilter
-- not null: creativeName, campaignId
select f.creative_id as "creativeId", cr.name as "creativeName", cr.campaign_id as "campaignId", min(cr.external_id) as "externalId",
       {{base: sum(f.%::float8) as % ;; money: case when count(*) = count(f.%) then sum(f.%) end as % ;; decimal: sum(f.%) as %}}
from report_facts(:accountIds, :campaignIds, :from, :to, :currency) f
join report_creatives(:accountIds, :campaignIds) cr on cr.id = f.creative_id and (not :video::boolean or cr.format = 'video')
where :nameFilter::text is null or strpos(lower(cr.name), lower(:nameFilter)) > 0
group by cr.name, f.creative_id, cr.campaign_id
order by cr.name, f.creative_id
