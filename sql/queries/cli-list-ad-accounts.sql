-- Organization $1's ad accounts for the operator: id, platform, external id, name, currency, connection status.
select id, platform, external_id as "externalId", name, currency, connection_status as "connectionStatus"
from ad_accounts where organization_id = $1
order by platform, name, id
