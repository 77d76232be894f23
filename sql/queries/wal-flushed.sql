-- The primary's WAL flushed so far: a read that must see every change committed before it asks waits for a standby
-- to have replayed this far. Returns {lsn}.
-- not null: lsn
select pg_current_wal_flush_lsn()::text as lsn
