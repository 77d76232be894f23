-- Returns the first staged line whose currency differs from its existing ad account's (organization $1), naming it.
select i.line, a.currency as existing, i.currency as given, a.platform, a.external_id, a.name
from import_rows i
join ad_accounts a on a.organization_id = $1 and a.platform = i.platform and a.external_id = i.account_external_id
where a.currency <> i.currency
order by i.line
limit 1
