-- Returns which of the report ids $2 belong to organization $1.
select id from reports where organization_id = $1 and id = any($2::uuid[])
