-- This connection's backend: pid, and whether the server is the embedded PGlite (one backend for every connection,
-- which must never be ended from outside).
select pg_backend_pid() as pid, version() like '%PGlite%' as embedded
