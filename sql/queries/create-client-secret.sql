-- Adds a secret hash to a live client (:client, :hash, :expires expiry or null); returns the secret id, none if the
-- client is revoked or unknown.
insert into client_secrets (organization_id, client_id, secret_hash, expires_at)
select c.organization_id, c.id, :hash, :expires
from api_clients c
where c.id = :client and c.revoked_at is null
returning id
