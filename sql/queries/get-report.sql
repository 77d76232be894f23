-- Returns report $1 in the API's shape when organization $2's client may read it (report allow-list $3 all, or ids $4;
-- ad-account allow-list $5 all, or ids $6).
select report_definition(r, $5, $6) as item
from reports r
where r.id = $1 and r.organization_id = $2 and ($3::boolean or r.id = any($4::uuid[]))
