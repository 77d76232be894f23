-- Revokes one secret of a client ($1 client, $2 secret id); returns it, already revoked or not, if it belongs to the client.
update client_secrets
set revoked_at = coalesce(revoked_at, now())
where client_id = $1 and id = $2
returning id, revoked_at
