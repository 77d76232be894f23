-- Returns which of the ad account ids $2 belong to organization $1.
select id from ad_accounts where organization_id = $1 and id = any($2::uuid[])
