-- Organization $1's reports for the operator: id, name, kind, currency, metrics, groupings, ad account count.
select r.id, r.name, r.kind, r.currency, r.metrics, r.groupings,
       (select count(*)::int from report_ad_accounts a where a.report_id = r.id) as "adAccounts"
from reports r where r.organization_id = $1
order by r.name, r.id
