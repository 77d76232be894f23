-- Tells the facts' trigger that every fact this transaction updates has new numbers on the same key, so an update's
-- days are its rows' days, not paired old with new (migration 044). import-facts updates only such facts.
select set_config('readout.updates_change', 'on', true)
