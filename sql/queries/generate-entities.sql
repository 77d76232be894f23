-- Creates synthetic ad accounts (:accounts), campaigns (:campaigns) and creatives (:creatives) for organization :org,
-- account n in currency :currencies[n mod the list's length], named "Generated ..." and keyed by their number so a
-- re-run adds nothing twice; one in three creatives is a video.
with accounts as (
  insert into ad_accounts (organization_id, platform, external_id, name, currency)
  select :org, (array['google-ads','meta-ads','linkedin-ads','microsoft-ads','tiktok-ads'])[1 + n % 5], 'gen-' || n,
         'Generated account ' || lpad(n::text, 4, '0'), (:currencies::text[])[1 + (n - 1) % cardinality(:currencies::text[])]
  from generate_series(1, :accounts::int) n
  on conflict (organization_id, platform, external_id) do update set name = excluded.name
  returning id, (substring(external_id from 5))::int as n
), campaigns_in as (
  insert into campaigns (organization_id, ad_account_id, external_id, name, status)
  select :org, a.id, 'gen-' || c, 'Generated campaign ' || lpad(c::text, 7, '0'), (array['active','active','paused','archived'])[1 + c % 4]
  from generate_series(1, :campaigns::int) c
  join accounts a on a.n = 1 + c % :accounts::int
  on conflict (ad_account_id, external_id) do update set name = excluded.name
  returning id, (substring(external_id from 5))::int as n
)
insert into creatives (organization_id, campaign_id, external_id, name, format)
select :org, c.id, 'gen-' || k, 'Generated creative ' || lpad(k::text, 8, '0'), (array['video','image','text'])[1 + k % 3]
from generate_series(1, :creatives::int) k
join campaigns_in c on c.n = 1 + k % :campaigns::int
on conflict (campaign_id, external_id) do nothing
