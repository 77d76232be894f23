-- Returns the organization :id, if it exists.
select id, name, currency, time_zone, created_at from organizations where id = :id
