-- Creates (when $2 is null) or changes organization $1's segment $2: name $3, description $4, member campaigns $5
-- (ids) and no others. Returns its id.
with saved as (
  insert into segments as s (id, organization_id, name, description)
  values (coalesce($2, gen_random_uuid()), $1, $3, $4)
  on conflict (id) do update set name = excluded.name, description = excluded.description
  returning id
), dropped as (
  delete from segment_campaigns sc using saved
  where sc.segment_id = saved.id and sc.campaign_id <> all($5::uuid[])
), added as (
  insert into segment_campaigns (organization_id, segment_id, campaign_id)
  select $1, saved.id, c from saved, unnest($5::uuid[]) c
  on conflict do nothing
)
select id from saved
