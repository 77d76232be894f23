-- Whether this standby has replayed the primary's WAL up to $1 (so its snapshots see every change committed before
-- it). Returns {caught_up}; null on a server that is not a standby.
select pg_last_wal_replay_lsn() >= $1::pg_lsn as caught_up
