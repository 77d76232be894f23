-- A demo ad account: id :id of organization :org on platform :platform, external id :externalId, name :name, currency
-- :currency, connection status :status; made once.
insert into ad_accounts (id, organization_id, platform, external_id, name, currency, connection_status)
values (:id, :org, :platform, :externalId, :name, :currency, :status) on conflict (id) do nothing
