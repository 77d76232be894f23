-- One demo at a time, even when two operators run it together: held until the transaction ends.
select pg_advisory_xact_lock(727002)
