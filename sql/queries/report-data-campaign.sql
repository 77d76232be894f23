-- Report data grouped by campaign, ordered by campaign name, then id.
-- Columns: the grouping's dimension keys (docs/decisions.md §6), then the sums.
-- Parameters: :campaignIds null reads every campaign of :accountIds (a segment report names its own); the range is
-- :from to :to, in :currency; :nameFilter null filters no name.
-- The integer columns are summed as doubles (exact below 2^53), as in report-data-creative.sql.
-- Money that cannot be converted (no rate on or before its day) makes the row's money null, never a partial sum.
-- Summed per campaign before the campaigns' join, so a filter on their names (query.ts) cannot change how the sums
-- are made: grouped after the join, a name filter's guess of the rows left made PostgreSQL sort them to sum.
-- client values: nameFilter
select c.id as "campaignId", c.name as "campaignName", c.ad_account_id as "adAccountId", c.external_id as "externalId",
       {{base: f.%}}
from (
  select f.campaign_id,
         {{base: sum(f.%::float8) as % ;; money: case when count(*) = count(f.%) then sum(f.%) end as % ;; decimal: sum(f.%) as %}}
  from report_campaign_spans(:accountIds, :campaignIds, :from, :to, :currency) f
  group by f.campaign_id
) f
-- The report's accounts' campaigns (of :campaignIds, when given; every summed one is theirs), read as one set through
-- their accounts' index and hashed, as report_creatives reads creatives (migration 035): probed a summed row at a time,
-- an index of every organization's campaigns cost more as it grew, and a name filter is checked on theirs alone.
join (select c.id, c.name, c.ad_account_id, c.external_id from campaigns c
      where c.ad_account_id = any(:accountIds) and (:campaignIds::uuid[] is null or c.id = any(:campaignIds)) offset 0) c on c.id = f.campaign_id
where :nameFilter::text is null or strpos(lower(c.name), lower(:nameFilter)) > 0
order by c.name, c.id
