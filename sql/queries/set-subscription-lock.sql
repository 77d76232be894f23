-- Locks ($2 true) or unlocks organization $1's subscription; returns the new state.
update subscriptions set locked = $2, updated_at = now() where organization_id = $1 returning organization_id, locked
