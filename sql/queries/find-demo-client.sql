-- The demo organization :org's oldest client named 'Demo client' still in service: {id}, or no row.
select id from api_clients where organization_id = :org and name = 'Demo client' and revoked_at is null order by created_at limit 1
