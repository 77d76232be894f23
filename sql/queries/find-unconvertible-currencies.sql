-- Currencies that report money needs and that have no rate on or before the first day it is needed: ad accounts'
-- currencies from their first fact, and reports' currencies from their accounts' first fact. Money on such days is
-- unknown in any other currency (docs/decisions.md §11). Of organization :org, or of every one when it is null.
-- Columns: currency, needed_from, first_rate (null: none at all), organizations (the names of those whose money it is).
-- not null: currency, organizations
with first_facts as (
  select a.id, a.organization_id, a.currency, (select min(f.day) from facts f where f.ad_account_id = a.id) as first_day
  from ad_accounts a
  where :org::uuid is null or a.organization_id = :org::uuid
), needed as (
  select organization_id, currency, first_day from first_facts where first_day is not null
  union all
  select r.organization_id, r.currency, ff.first_day
  from reports r join report_ad_accounts ra on ra.report_id = r.id join first_facts ff on ff.id = ra.ad_account_id
  where ff.first_day is not null
), gaps as (
  select n.organization_id, n.currency, min(n.first_day) as needed_from
  from needed n
  where n.currency <> 'USD'
  group by n.organization_id, n.currency
  having not exists (select 1 from fx_rates r where r.currency = n.currency and r.day <= min(n.first_day))
)
select g.currency, min(g.needed_from)::text as needed_from,
  (select min(r.day)::text from fx_rates r where r.currency = g.currency) as first_rate,
  array_agg(o.name order by o.name) as organizations
from gaps g join organizations o on o.id = g.organization_id
group by g.currency
order by g.currency
