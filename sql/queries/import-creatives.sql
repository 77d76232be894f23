-- Creates organization :org's staged creatives, or renames them, each as its last line has it (a creative staged twice,
-- under two numbers, by its later line). A creative the file names as it is stays as it is: no new row version.
insert into creatives as cr (organization_id, campaign_id, external_id, name, format)
select :org::uuid, c.id, k.creative_external_id, k.creative_name, k.format
from import_creatives k
join (
  select max(line) as line from import_creatives
  group by platform, account_external_id, campaign_external_id, creative_external_id
) l on l.line = k.line
join ad_accounts a on a.organization_id = :org and a.platform = k.platform and a.external_id = k.account_external_id
join campaigns c on c.ad_account_id = a.id and c.external_id = k.campaign_external_id
on conflict (campaign_id, external_id) do update set name = excluded.name, format = excluded.format
where (cr.name, cr.format) is distinct from (excluded.name, excluded.format)
