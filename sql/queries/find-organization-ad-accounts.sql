-- Returns which of the ad account ids :ids belong to organization :org.
select id from ad_accounts where organization_id = :org and id = any(:ids::uuid[])
