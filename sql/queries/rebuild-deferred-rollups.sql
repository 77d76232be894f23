-- Rebuilds, once, the rollups of every month the transaction's facts touched since defer-rollups.
select rebuild_deferred_rollups()
