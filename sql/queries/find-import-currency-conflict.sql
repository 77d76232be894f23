-- Returns the first line of a staged ad account whose currency differs from the same account's in organization :org,
-- naming it.
select k.account_first_line as line, a.currency as existing, k.currency as given, a.platform, a.external_id, a.name
from import_creatives k
join ad_accounts a on a.organization_id = :org and a.platform = k.platform and a.external_id = k.account_external_id
where a.currency <> k.currency
order by k.account_first_line
limit 1
