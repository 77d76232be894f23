-- A demo creative: id :id of organization :org in campaign :campaign, external id :externalId, name :name, format
-- :format; made once.
insert into creatives (id, organization_id, campaign_id, external_id, name, format) values (:id, :org, :campaign, :externalId, :name, :format)
on conflict (id) do nothing
