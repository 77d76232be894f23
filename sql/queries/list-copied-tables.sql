-- Returns every table of readout's schema that db copy carries (all but schema_migrations, which each side writes as
-- it migrates), its columns by name, and the tables its foreign keys name: those are written first.
-- not null: name, columns, parents
select
  c.relname::text as name,
  array(
    select a.attname::text from pg_attribute a
    where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    order by a.attname
  ) as columns,
  array(
    select distinct p.relname::text from pg_constraint f join pg_class p on p.oid = f.confrelid
    where f.conrelid = c.oid and f.contype = 'f' and f.confrelid <> c.oid
  ) as parents
from pg_class c
where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r' and c.relname <> 'schema_migrations'
order by c.relname
