-- Returns one row: total and page :page (size :size) of organization :org's campaigns, cut by the ad-account allow-list
-- (:adAccountsAll all, or ids :adAccountIds), optionally of ad account :adAccount and whose name contains :name (any
-- case); ordered by name, then id.
with visible as (
  select c.*, a.platform
  from campaigns c
  join ad_accounts a on a.id = c.ad_account_id
  where c.organization_id = :org
    and (:adAccountsAll::boolean or c.ad_account_id = any(:adAccountIds::uuid[]))
    and (:adAccount::uuid is null or c.ad_account_id = :adAccount)
    and (:name::text is null or strpos(lower(c.name), lower(:name)) > 0)
)
select
  (select count(*)::int from visible) as total,
  coalesce((
    select json_agg(json_build_object(
      'id', c.id, 'organizationId', c.organization_id, 'adAccountId', c.ad_account_id, 'externalId', c.external_id,
      'name', c.name, 'status', c.status, 'platform', c.platform) order by c.name, c.id)
    from (select * from visible order by name, id limit :size offset (:page::bigint - 1) * :size) c
  ), '[]') as items
