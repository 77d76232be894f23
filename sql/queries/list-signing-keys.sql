-- Returns the keys that may verify tokens, the one that signs first: it is the key no rotation has retired yet; the
-- others verify until their retired_at, when every token they signed has expired (docs/decisions.md §9).
select kid, secret, created_at, (extract(epoch from retired_at) * 1000)::float8 as retired_at_ms
from signing_keys
where retired_at is null or retired_at > now()
order by retired_at is not null, created_at desc, kid
