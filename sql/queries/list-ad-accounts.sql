-- Returns one row: total and page :page (size :size) of organization :org's ad accounts, cut by the allow-list
-- (:adAccountsAll all, or ids :adAccountIds), optionally of platform :platform; ordered by name, then id.
with visible as (
  select a.*
  from ad_accounts a
  where a.organization_id = :org
    and (:adAccountsAll::boolean or a.id = any(:adAccountIds::uuid[]))
    and (:platform::text is null or a.platform = :platform)
)
select
  (select count(*)::int from visible) as total,
  coalesce((
    select json_agg(json_build_object(
      'id', a.id, 'organizationId', a.organization_id, 'platform', a.platform, 'externalId', a.external_id,
      'name', a.name, 'currency', a.currency, 'timeZone', a.time_zone, 'connectionStatus', a.connection_status,
      'lastFetchedAt', to_char(a.last_fetched_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) order by a.name, a.id)
    from (select * from visible order by name, id limit :size offset (:page::bigint - 1) * :size) a
  ), '[]') as items
