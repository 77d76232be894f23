-- Returns which of the report ids :ids belong to organization :org.
select id from reports where organization_id = :org and id = any(:ids::uuid[])
