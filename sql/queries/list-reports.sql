-- Returns one row: total and page $1 (size $2) of the reports of organization $3 that the report allow-list
-- ($4 all, or ids $5) lets this client read; ordered by name, then id. Ad accounts shown are cut by the
-- ad-account allow-list ($6 all, or ids $7). And, read in the same statement, the organization's report version
-- (migration 010).
-- not null: total, version
with visible as (
  select r.*
  from reports r
  where r.organization_id = $3 and ($4::boolean or r.id = any($5::uuid[]))
)
select
  (select count(*)::int from visible) as total,
  coalesce((
    select json_agg(report_definition(r, $6, $7) order by r.name, r.id)
    from (select * from visible order by name, id limit $2 offset ($1::bigint - 1) * $2) r
  ), '[]') as items,
  coalesce((select v.version from report_versions v where v.organization_id = $3), 0)::float8 as version
