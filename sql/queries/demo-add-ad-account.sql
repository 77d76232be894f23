-- A demo ad account: id $1 of organization $2 on platform $3, external id $4, name $5, currency $6, connection
-- status $7; made once.
insert into ad_accounts (id, organization_id, platform, external_id, name, currency, connection_status)
values ($1, $2, $3, $4, $5, $6, $7) on conflict (id) do nothing
