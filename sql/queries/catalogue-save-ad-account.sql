-- Creates or renames organization :org's ad account :platform/:externalId: name :name, currency :currency (a new
-- one's), time zone :timeZone (null keeps the account's, or UTC for a new one). Returns its id.
insert into ad_accounts as a (organization_id, platform, external_id, name, currency, time_zone)
values (:org, :platform, :externalId, :name, :currency, coalesce(:timeZone, 'UTC'))
on conflict (organization_id, platform, external_id)
do update set name = excluded.name, time_zone = coalesce(:timeZone, a.time_zone)
returning id
