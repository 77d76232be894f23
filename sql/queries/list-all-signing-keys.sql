-- Returns every signing key for `keys list`, newest first, never its secret.
select
  kid,
  to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "createdAt",
  retired_at is null as current,
  to_char(retired_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "retiredAt"
from signing_keys
order by created_at desc, kid
