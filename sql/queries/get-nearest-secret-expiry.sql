-- Returns the soonest expiry among the client's live dated secrets ($1 client, $2 now); null when none expires.
select min(expires_at) as nearest
from client_secrets
where client_id = $1 and revoked_at is null and expires_at > $2
