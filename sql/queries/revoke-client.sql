-- Revokes a client (:client); its live tokens stop within a second. Returns the client if it exists.
update api_clients
set revoked_at = coalesce(revoked_at, now())
where id = :client
returning id, revoked_at
