-- Defers the rollups of the facts this transaction writes to one rebuild at its end (rebuild-deferred-rollups).
select defer_rollups()
