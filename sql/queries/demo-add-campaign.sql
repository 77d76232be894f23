-- A demo campaign: id :id of organization :org in ad account :adAccount, external id :externalId, name :name, status
-- :status; made once.
insert into campaigns (id, organization_id, ad_account_id, external_id, name, status) values (:id, :org, :adAccount, :externalId, :name, :status)
on conflict (id) do nothing
