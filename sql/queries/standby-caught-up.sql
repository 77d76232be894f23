-- Whether this standby has replayed the primary's WAL up to :lsn (so its snapshots see every change committed before
-- it). Returns {caught_up}; null on a server that is not a standby.
select pg_last_wal_replay_lsn() >= :lsn::pg_lsn as caught_up
