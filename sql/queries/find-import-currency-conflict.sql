-- Returns the first staged line whose currency differs from its existing ad account's (organization $1).
select i.line, a.currency as existing, i.currency as given
from import_rows i
join ad_accounts a on a.organization_id = $1 and a.platform = i.platform and a.external_id = i.account_external_id
where a.currency <> i.currency
order by i.line
limit 1
