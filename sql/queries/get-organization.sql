-- Returns the organization $1, if it exists.
select id, name, currency, time_zone, created_at from organizations where id = $1
