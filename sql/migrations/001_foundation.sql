-- 001: shared helpers. gen_random_uuid() is built in from PostgreSQL 13; nothing else is needed yet.
select 1;
