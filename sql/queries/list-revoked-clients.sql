-- Returns the ids of every revoked client, and the database's clock when read.
select coalesce(array_agg(id), '{}') as ids, now() as read_at
from api_clients
where revoked_at is not null
