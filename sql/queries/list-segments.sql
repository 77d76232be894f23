-- Returns one row: total and page $1 (size $2) of organization $3's segments, ordered by name, then id.
-- campaignCount counts the member campaigns this client may see (ad-account allow-list: $4 all, or ids $5).
with visible as (
  select s.* from segments s where s.organization_id = $3
)
select
  (select count(*)::int from visible) as total,
  coalesce((
    select json_agg(json_build_object(
      'id', s.id, 'organizationId', s.organization_id, 'name', s.name, 'description', s.description,
      'campaignCount', (
        select count(*)::int
        from segment_campaigns sc join campaigns c on c.id = sc.campaign_id
        where sc.segment_id = s.id and ($4::boolean or c.ad_account_id = any($5::uuid[])))
      ) order by s.name, s.id)
    from (select * from visible order by name, id limit $2 offset ($1::bigint - 1) * $2) s
  ), '[]') as items
