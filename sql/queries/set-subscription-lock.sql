-- Locks (:locked true) or unlocks organization :org's subscription; returns the new state.
update subscriptions set locked = :locked, updated_at = now() where organization_id = :org returning organization_id, locked
