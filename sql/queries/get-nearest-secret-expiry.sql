-- Returns the soonest expiry among the client's live dated secrets (:client, :now); null when none expires.
select min(expires_at) as nearest
from client_secrets
where client_id = :client and revoked_at is null and expires_at > :now
