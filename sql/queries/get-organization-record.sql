-- Returns organization :org in the API's shape, if it exists.
select json_build_object(
  'id', o.id, 'name', o.name, 'currency', o.currency, 'timeZone', o.time_zone,
  'createdAt', to_char(o.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as item
from organizations o
where o.id = :org
