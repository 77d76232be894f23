-- Returns how many tables the current schema holds, and whether readout's are among them: db copy writes only into a
-- database with none, or with readout's schema and no installation in it yet.
-- not null: tables, readout
select
  (select count(*)::int from pg_class where relnamespace = current_schema()::regnamespace and relkind = 'r') as tables,
  to_regclass('organizations') is not null and to_regclass('schema_migrations') is not null as readout
