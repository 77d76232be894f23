-- Currencies that report money needs and that have no rate on or before the first day it is needed: ad accounts'
-- currencies from their first fact, and reports' currencies from their accounts' first fact. Money on such days is
-- unknown in any other currency (docs/decisions.md §11). Columns: currency, needed_from, first_rate (null: none at all).
with first_facts as (
  select a.id, a.currency, (select min(f.day) from facts f where f.ad_account_id = a.id) as first_day
  from ad_accounts a
), needed as (
  select currency, first_day from first_facts where first_day is not null
  union all
  select r.currency, ff.first_day
  from reports r join report_ad_accounts ra on ra.report_id = r.id join first_facts ff on ff.id = ra.ad_account_id
  where ff.first_day is not null
), earliest as (
  select currency, min(first_day) as needed_from from needed where currency <> 'USD' group by currency
)
select e.currency, e.needed_from::text as needed_from, (select min(r.day)::text from fx_rates r where r.currency = e.currency) as first_rate
from earliest e
where not exists (select 1 from fx_rates r where r.currency = e.currency and r.day <= e.needed_from)
order by e.currency
