-- Revokes one secret of a client (:client, :secret id); returns it, already revoked or not, if it belongs to the
-- client.
update client_secrets
set revoked_at = coalesce(revoked_at, now())
where client_id = :client and id = :secret
returning id, revoked_at
