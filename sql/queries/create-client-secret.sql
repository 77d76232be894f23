-- Adds a secret hash to a live client ($1 client, $2 hash, $3 expiry or null); returns the secret id, none if the client is revoked or unknown.
insert into client_secrets (organization_id, client_id, secret_hash, expires_at)
select c.organization_id, c.id, $2, $3
from api_clients c
where c.id = $1 and c.revoked_at is null
returning id
