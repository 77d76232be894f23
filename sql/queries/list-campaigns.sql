-- Returns one row: total and page $1 (size $2) of organization $3's campaigns, cut by the ad-account allow-list
-- ($4 all, or ids $5), optionally of ad account $6 and whose name contains $7 (any case); ordered by name, then id.
with visible as (
  select c.*, a.platform
  from campaigns c
  join ad_accounts a on a.id = c.ad_account_id
  where c.organization_id = $3
    and ($4::boolean or c.ad_account_id = any($5::uuid[]))
    and ($6::uuid is null or c.ad_account_id = $6)
    and ($7::text is null or strpos(lower(c.name), lower($7)) > 0)
)
select
  (select count(*)::int from visible) as total,
  coalesce((
    select json_agg(json_build_object(
      'id', c.id, 'organizationId', c.organization_id, 'adAccountId', c.ad_account_id, 'externalId', c.external_id,
      'name', c.name, 'status', c.status, 'platform', c.platform) order by c.name, c.id)
    from (select * from visible order by name, id limit $2 offset ($1::bigint - 1) * $2) c
  ), '[]') as items
