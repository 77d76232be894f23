-- Creates a signing key unless an unretired one exists (:kid, :secret); returns the row it made, if any.
insert into signing_keys (kid, secret)
select :kid, :secret
where not exists (select 1 from signing_keys where retired_at is null)
returning kid
