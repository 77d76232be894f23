-- Report data grouped by campaign, ordered by campaign name, then id.
-- Columns: the grouping's dimension keys (DECISIONS §6), then the sums. Parameters: $1 ad accounts, $2 campaigns (null: all; segment reports), $3 from, $4 to, $5 report currency, $6 name filter (null: none).
-- The integer columns are summed as doubles (exact below 2^53), as in report-data-creative.sql.
select c.id as "campaignId", c.name as "campaignName", c.ad_account_id as "adAccountId", c.external_id as "externalId",
       sum(f.impressions::float8) as impressions, sum(f.clicks::float8) as clicks, sum(f.spend) as spend,
       sum(f.conversions) as conversions, sum(f.conversion_value) as conversion_value,
       sum(f.video_views::float8) as video_views, sum(f.video_completions::float8) as video_completions
from report_campaign_facts($1, $2, $3, $4, $5) f
join campaigns c on c.id = f.campaign_id
where $6::text is null or strpos(lower(c.name), lower($6)) > 0
group by c.id
order by c.name, c.id
