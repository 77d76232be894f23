-- Folds the staged rows into organization $1: ad accounts, campaigns and creatives by their platform ids (names
-- updated, and campaign statuses when the file has the column: $2), then facts (a day already loaded is replaced).
-- Where a file repeats a key, its last line wins: each part picks those lines with a hash aggregate of max(line)
-- rather than sorting every staged row (BENCHMARKS.md, "Loading facts").
-- A fact whose numbers the file repeats is left as it is: no new row version, no stamp, no rollup rebuilt (a
-- platform's restatement re-sends weeks of which few days changed).
-- Returns {rows, account_ids}: rows counts the file's facts, written or unchanged; marking the accounts fetched is a
-- statement of its own (mark-fetched), as one statement's parts cannot see the rows another part inserts.
-- not null: rows, account_ids
with last_lines as materialized (
  select max(line) as line from import_rows
  group by platform, account_external_id, campaign_external_id, creative_external_id, day
), accounts as (
  insert into ad_accounts (organization_id, platform, external_id, name, currency)
  select $1::uuid, i.platform, i.account_external_id, i.account_name, i.currency
  from import_rows i
  join (select max(line) as line from import_rows group by platform, account_external_id) l on l.line = i.line
  on conflict (organization_id, platform, external_id) do update set name = excluded.name
  returning id, platform, external_id
), campaigns_in as (
  insert into campaigns as c (organization_id, ad_account_id, external_id, name, status)
  select $1::uuid, a.id, i.campaign_external_id, i.campaign_name, coalesce(i.campaign_status, 'active')
  from import_rows i
  join (select max(line) as line from import_rows group by platform, account_external_id, campaign_external_id) l
    on l.line = i.line
  join accounts a on a.platform = i.platform and a.external_id = i.account_external_id
  -- The last line's status wins; a file without the column ($2 false) leaves a campaign's status as it is.
  on conflict (ad_account_id, external_id) do update set name = excluded.name,
    status = case when $2::boolean then excluded.status else c.status end
  returning id, ad_account_id, external_id
), creatives_in as (
  insert into creatives (organization_id, campaign_id, external_id, name, format)
  select $1::uuid, c.id, i.creative_external_id, i.creative_name, i.format
  from import_rows i
  join (
    select max(line) as line from import_rows
    group by platform, account_external_id, campaign_external_id, creative_external_id
  ) l on l.line = i.line
  join accounts a on a.platform = i.platform and a.external_id = i.account_external_id
  join campaigns_in c on c.ad_account_id = a.id and c.external_id = i.campaign_external_id
  on conflict (campaign_id, external_id) do update set name = excluded.name, format = excluded.format
  returning id, campaign_id, external_id
), facts_in as (
  insert into facts (organization_id, ad_account_id, campaign_id, creative_id, day, impressions, clicks, spend,
                     conversions, conversion_value, video_views, video_completions)
  select $1::uuid, a.id, c.id, cr.id, i.day, i.impressions, i.clicks, i.spend,
         i.conversions, i.conversion_value, i.video_views, i.video_completions
  from import_rows i
  join last_lines l on l.line = i.line
  join accounts a on a.platform = i.platform and a.external_id = i.account_external_id
  join campaigns_in c on c.ad_account_id = a.id and c.external_id = i.campaign_external_id
  join creatives_in cr on cr.campaign_id = c.id and cr.external_id = i.creative_external_id
  on conflict (ad_account_id, day, creative_id) do update set
    impressions = excluded.impressions, clicks = excluded.clicks, spend = excluded.spend,
    conversions = excluded.conversions, conversion_value = excluded.conversion_value,
    video_views = excluded.video_views, video_completions = excluded.video_completions
  where (facts.impressions, facts.clicks, facts.spend, facts.conversions, facts.conversion_value, facts.video_views,
         facts.video_completions)
    is distinct from (excluded.impressions, excluded.clicks, excluded.spend, excluded.conversions,
                      excluded.conversion_value, excluded.video_views, excluded.video_completions)
)
-- facts_in runs to completion unread, as every data-modifying WITH part does.
select (select count(*)::int from last_lines) as rows, (select coalesce(array_agg(id), '{}') from accounts) as account_ids
