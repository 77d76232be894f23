-- Returns one row: total and page :page (size :size) of the system metrics followed by organization :org's custom and
-- declared base metrics (migration 047; a declared one has no formula).
with catalogue as (
  select m.name, m.display_name, m.kind, m.unit, true as system, m.conversion_derived, m.description,
         null::text as formula, 0 as part, m.position
  from system_metrics m
  union all
  select c.name, c.display_name, c.kind, c.unit, false, c.conversion_derived, c.description, c.formula, 1, 0
  from custom_metrics c
  where c.organization_id = :org
)
select
  (select count(*)::int from catalogue) as total,
  coalesce((
    select json_agg(json_strip_nulls(json_build_object(
      'name', m.name, 'displayName', m.display_name, 'kind', m.kind, 'unit', m.unit, 'system', m.system,
      'conversionDerived', m.conversion_derived, 'description', m.description, 'formula', m.formula)) order by m.part, m.position, m.name)
    from (select * from catalogue order by part, position, name limit :size offset (:page::bigint - 1) * :size) m
  ), '[]') as items
