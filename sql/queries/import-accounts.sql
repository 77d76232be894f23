-- Creates or renames organization :org's ad accounts that the staged creatives name, each as its last line has it
-- (docs/commands.md, "Importing platform data"). Returns every one of them: the import marks them fetched.
insert into ad_accounts (organization_id, platform, external_id, name, currency)
select :org::uuid, k.platform, k.account_external_id, k.account_name, k.currency
from import_creatives k
join (select max(line) as line from import_creatives group by platform, account_external_id) l on l.line = k.line
on conflict (organization_id, platform, external_id) do update set name = excluded.name
returning id
