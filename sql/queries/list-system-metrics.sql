-- Returns one row: the number of system metrics (total) and page :page of size :size of them (items), in catalogue
-- order.
select
  (select count(*)::int from system_metrics) as total,
  coalesce((
    select json_agg(json_build_object(
      'name', m.name, 'displayName', m.display_name, 'kind', m.kind, 'unit', m.unit,
      'system', true, 'conversionDerived', m.conversion_derived, 'description', m.description) order by m.position)
    from (select * from system_metrics order by position limit :size offset (:page::bigint - 1) * :size) m
  ), '[]') as items
