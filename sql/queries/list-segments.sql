-- Returns one row: total and page :page (size :size) of organization :org's segments, ordered by name, then id.
-- campaignCount counts the member campaigns this client may see (ad-account allow-list: :adAccountsAll all, or ids
-- :adAccountIds).
with visible as (
  select s.* from segments s where s.organization_id = :org
)
select
  (select count(*)::int from visible) as total,
  coalesce((
    select json_agg(json_build_object(
      'id', s.id, 'organizationId', s.organization_id, 'name', s.name, 'description', s.description,
      'campaignCount', (
        select count(*)::int
        from segment_campaigns sc join campaigns c on c.id = sc.campaign_id
        where sc.segment_id = s.id and (:adAccountsAll::boolean or c.ad_account_id = any(:adAccountIds::uuid[])))
      ) order by s.name, s.id)
    from (select * from visible order by name, id limit :size offset (:page::bigint - 1) * :size) s
  ), '[]') as items
