-- Makes key :kid (secret :secret) the one that signs; the one that signed until now verifies for :retiresInS more
-- seconds, long enough for every token it may still sign to expire (docs/decisions.md §9). Returns the new key.
with retired as (
  update signing_keys
  set retired_at = now() + make_interval(secs => :retiresInS::float8)
  where retired_at is null
  returning kid
)
insert into signing_keys (kid, secret)
select :kid, :secret
returning kid, (select count(*) from retired)::int as retired
