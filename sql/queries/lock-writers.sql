-- The writers' lock (migration 024, docs/decisions.md §14): the first statement of every transaction that writes
-- facts, exchange rates or report currencies, held until it ends. Returns {locked}.
-- not null: locked
select true as locked from lock_writers()
