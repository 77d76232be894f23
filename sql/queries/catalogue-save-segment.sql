-- Creates (when :id is null) or changes organization :org's segment :id: name :name, description :description, member
-- campaigns :campaigns (ids) and no others. Returns its id.
with saved as (
  insert into segments as s (id, organization_id, name, description)
  values (coalesce(:id, gen_random_uuid()), :org, :name, :description)
  on conflict (id) do update set name = excluded.name, description = excluded.description
  returning id
), dropped as (
  delete from segment_campaigns sc using saved
  where sc.segment_id = saved.id and sc.campaign_id <> all(:campaigns::uuid[])
), added as (
  insert into segment_campaigns (organization_id, segment_id, campaign_id)
  select :org, saved.id, c from saved, unnest(:campaigns::uuid[]) c
  on conflict do nothing
)
select id from saved
