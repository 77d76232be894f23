-- A standby's state: whether it is one (in recovery), and the WAL it has replayed. Returns {standby, replayed}.
select pg_is_in_recovery() as standby, pg_last_wal_replay_lsn()::text as replayed
