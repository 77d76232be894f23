-- Returns one row: total and page :page (size :size) of the organizations this client reads: its own (:org), a list of
-- one.
select
  (select count(*)::int from organizations where id = :org) as total,
  coalesce((
    select json_agg(json_build_object(
      'id', o.id, 'name', o.name, 'currency', o.currency, 'timeZone', o.time_zone,
      'createdAt', to_char(o.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
    from (select * from organizations where id = :org order by name, id limit :size offset (:page::bigint - 1) * :size) o
  ), '[]') as items
