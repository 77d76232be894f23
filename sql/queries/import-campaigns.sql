-- Creates organization :org's campaigns that the staged creatives name, or renames them, each as its last line has it;
-- with :withStatus (the file has campaign_status) its status too, else a new one is active and an old one keeps its
-- own. A campaign the file names as it is stays as it is: no new row version.
insert into campaigns as c (organization_id, ad_account_id, external_id, name, status)
select :org::uuid, a.id, k.campaign_external_id, k.campaign_name, coalesce(k.campaign_status, 'active')
from import_creatives k
join (
  select max(line) as line from import_creatives group by platform, account_external_id, campaign_external_id
) l on l.line = k.line
join ad_accounts a on a.organization_id = :org and a.platform = k.platform and a.external_id = k.account_external_id
on conflict (ad_account_id, external_id) do update set name = excluded.name,
  status = case when :withStatus::boolean then excluded.status else c.status end
where (c.name, c.status) is distinct from (excluded.name, case when :withStatus::boolean then excluded.status else c.status end)
