-- Writes the staged facts into organization :org, their creatives created by import-creatives: a day already loaded is
-- replaced, and where a file gives a creative's day twice its last line wins. Only a creative whose days did not rise
-- line by line (repeats; every one, once an import held too many to tell) can give one twice, so only those lines are
-- grouped, by the creative they resolve to, to find it.
-- A fact whose numbers the file repeats is left as it is: no new row version, no stamp, no rollup rebuilt (a
-- platform's restatement re-sends weeks of which few days changed).
-- Only a day on which the file's accounts already hold facts can hold one of these keys (the writers' lock keeps it
-- so until commit): the other days are plainly inserted, without ON CONFLICT's check and confirmation of every row.
-- Both parts' rows go in key order: the upsert then walks the key's index in order, and the rows (new, or new
-- versions) lie together by account and day, where the rollups read them next: a fresh account-day's facts on a few
-- pages, not scattered among the other accounts' over every page of that day (BENCHMARKS.md, "What makes it fast").
-- Returns repeated_days: how many days the repeating creatives give, each counted once.
-- not null: repeated_days
with resolved as materialized (
  select k.creative, k.repeats, a.id as ad_account_id, c.id as campaign_id, cr.id as creative_id
  from import_creatives k
  join ad_accounts a on a.organization_id = :org and a.platform = k.platform and a.external_id = k.account_external_id
  join campaigns c on c.ad_account_id = a.id and c.external_id = k.campaign_external_id
  join creatives cr on cr.campaign_id = c.id and cr.external_id = k.creative_external_id
), last_lines as materialized (
  select max(i.line) as line
  from import_rows i
  join resolved r on r.creative = i.creative and r.repeats
  group by r.creative_id, i.day
), file_accounts as materialized (
  select distinct ad_account_id from resolved
), loaded_days as materialized (
  select d.day
  from (select distinct day from import_rows) d
  where exists (
    select from file_accounts a
    where exists (select from facts f where f.ad_account_id = a.ad_account_id and f.day = d.day))
), wanted as not materialized (
  select r.ad_account_id, r.campaign_id, r.creative_id, i.day, {{base: i.%}}, i.declared
  from import_rows i
  join resolved r on r.creative = i.creative
  where not r.repeats or i.line in (select line from last_lines)
), facts_new as (
  insert into facts (organization_id, ad_account_id, campaign_id, creative_id, day, {{base: %}}, declared)
  select :org::uuid, w.* from wanted w where w.day not in (select day from loaded_days)
  order by w.ad_account_id, w.day, w.creative_id
), facts_in as (
  insert into facts (organization_id, ad_account_id, campaign_id, creative_id, day, {{base: %}}, declared)
  select :org::uuid, w.* from wanted w where w.day in (select day from loaded_days)
  order by w.ad_account_id, w.day, w.creative_id
  on conflict (ad_account_id, day, creative_id) do update set
    {{base: % = excluded.%}}, declared = excluded.declared
  where ({{base: facts.%}}, facts.declared)
    is distinct from ({{base: excluded.%}}, excluded.declared)
)
-- facts_new and facts_in run to completion unread, as every data-modifying WITH part does.
select (select count(*)::int from last_lines) as repeated_days
