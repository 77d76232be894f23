-- Organization :org's campaigns, keyed as a catalogue file names them: platform/accountExternalId/campaignExternalId.
-- not null: key
select c.id, a.platform || '/' || a.external_id || '/' || c.external_id as key
from campaigns c join ad_accounts a on a.id = c.ad_account_id
where c.organization_id = :org
