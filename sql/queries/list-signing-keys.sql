-- Returns the keys that may verify tokens, newest first; the first one signs.
select kid, secret, created_at
from signing_keys
where retired_at is null
order by created_at desc, kid
