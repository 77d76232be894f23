-- Returns one row: total and page $1 (size $2) of the organizations this client reads: its own ($3), a list of one.
select
  (select count(*)::int from organizations where id = $3) as total,
  coalesce((
    select json_agg(json_build_object(
      'id', o.id, 'name', o.name, 'currency', o.currency, 'timeZone', o.time_zone,
      'createdAt', to_char(o.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
    from (select * from organizations where id = $3 order by name, id limit $2 offset ($1::bigint - 1) * $2) o
  ), '[]') as items
