-- Returns the ids of every revoked client, and of every client deleted with its organization (migration 018), and
-- the database's clock when read.
select coalesce((select array_agg(id) from (
         select id from api_clients where revoked_at is not null
         union all
         select id from deleted_clients
       ) c), '{}') as ids,
       now() as read_at
