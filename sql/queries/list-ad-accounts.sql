-- Returns one row: total and page $1 (size $2) of organization $3's ad accounts, cut by the allow-list
-- ($4 all, or ids $5), optionally of platform $6; ordered by name, then id.
with visible as (
  select a.*
  from ad_accounts a
  where a.organization_id = $3
    and ($4::boolean or a.id = any($5::uuid[]))
    and ($6::text is null or a.platform = $6)
)
select
  (select count(*)::int from visible) as total,
  coalesce((
    select json_agg(json_build_object(
      'id', a.id, 'organizationId', a.organization_id, 'platform', a.platform, 'externalId', a.external_id,
      'name', a.name, 'currency', a.currency, 'timeZone', a.time_zone, 'connectionStatus', a.connection_status,
      'lastFetchedAt', to_char(a.last_fetched_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) order by a.name, a.id)
    from (select * from visible order by name, id limit $2 offset ($1::bigint - 1) * $2) a
  ), '[]') as items
