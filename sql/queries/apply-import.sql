-- Folds the staged rows into organization $1: ad accounts, campaigns and creatives by their platform ids (names
-- updated, and campaign statuses when the file has the column: $2), then facts (a day already loaded is replaced).
-- Where a file repeats a key, its last line wins: each part picks those lines with a hash aggregate of max(line)
-- rather than sorting every staged row (BENCHMARKS.md, "Loading facts").
-- A fact whose numbers the file repeats is left as it is: no new row version, no stamp, no rollup rebuilt (a
-- platform's restatement re-sends weeks of which few days changed); so is a campaign or creative it names as it is.
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
), campaign_lines as materialized (
  -- Each campaign's last line, with its account.
  select a.id as ad_account_id, i.campaign_external_id, i.campaign_name, i.campaign_status
  from import_rows i
  join (select max(line) as line from import_rows group by platform, account_external_id, campaign_external_id) l
    on l.line = i.line
  join accounts a on a.platform = i.platform and a.external_id = i.account_external_id
), campaigns_in as (
  -- A campaign is written only when its name or status changes; the others are read as they are (campaigns_all).
  insert into campaigns as c (organization_id, ad_account_id, external_id, name, status)
  select $1::uuid, w.ad_account_id, w.campaign_external_id, w.campaign_name, coalesce(w.campaign_status, 'active')
  from campaign_lines w
  -- The last line's status wins; a file without the column ($2 false) leaves a campaign's status as it is.
  on conflict (ad_account_id, external_id) do update set name = excluded.name,
    status = case when $2::boolean then excluded.status else c.status end
  where (c.name, c.status) is distinct from (excluded.name, case when $2::boolean then excluded.status else c.status end)
  returning id, ad_account_id, external_id
), campaigns_all as (
  -- This statement reads the table as it was before it: a campaign it wrote is campaigns_in's, with the same id.
  select id, ad_account_id, external_id from campaigns_in
  union all
  select c.id, c.ad_account_id, c.external_id
  from campaign_lines w
  join campaigns c on c.ad_account_id = w.ad_account_id and c.external_id = w.campaign_external_id
  where not exists (select 1 from campaigns_in n where n.id = c.id)
), creative_lines as materialized (
  select c.id as campaign_id, i.creative_external_id, i.creative_name, i.format
  from import_rows i
  join (
    select max(line) as line from import_rows
    group by platform, account_external_id, campaign_external_id, creative_external_id
  ) l on l.line = i.line
  join accounts a on a.platform = i.platform and a.external_id = i.account_external_id
  join campaigns_all c on c.ad_account_id = a.id and c.external_id = i.campaign_external_id
), creatives_in as (
  insert into creatives as cr (organization_id, campaign_id, external_id, name, format)
  select $1::uuid, w.campaign_id, w.creative_external_id, w.creative_name, w.format
  from creative_lines w
  on conflict (campaign_id, external_id) do update set name = excluded.name, format = excluded.format
  where (cr.name, cr.format) is distinct from (excluded.name, excluded.format)
  returning id, campaign_id, external_id
), creatives_all as (
  select id, campaign_id, external_id from creatives_in
  union all
  select cr.id, cr.campaign_id, cr.external_id
  from creative_lines w
  join creatives cr on cr.campaign_id = w.campaign_id and cr.external_id = w.creative_external_id
  where not exists (select 1 from creatives_in n where n.id = cr.id)
), facts_in as (
  insert into facts (organization_id, ad_account_id, campaign_id, creative_id, day, impressions, clicks, spend,
                     conversions, conversion_value, video_views, video_completions)
  select $1::uuid, a.id, c.id, cr.id, i.day, i.impressions, i.clicks, i.spend,
         i.conversions, i.conversion_value, i.video_views, i.video_completions
  from import_rows i
  join last_lines l on l.line = i.line
  join accounts a on a.platform = i.platform and a.external_id = i.account_external_id
  join campaigns_all c on c.ad_account_id = a.id and c.external_id = i.campaign_external_id
  join creatives_all cr on cr.campaign_id = c.id and cr.external_id = i.creative_external_id
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
