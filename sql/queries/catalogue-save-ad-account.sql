-- Creates or renames organization $1's ad account $2/$3: name $4, currency $5 (a new one's), time zone $6 (null
-- keeps the account's, or UTC for a new one). Returns its id.
insert into ad_accounts as a (organization_id, platform, external_id, name, currency, time_zone)
values ($1, $2, $3, $4, $5, coalesce($6, 'UTC'))
on conflict (organization_id, platform, external_id)
do update set name = excluded.name, time_zone = coalesce($6, a.time_zone)
returning id
