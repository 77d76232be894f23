-- The fingerprint (migration 023) of report $1's scope as organization $2's client may read it (report allow-list $3
-- all, or ids $4; ad-account allow-list $5 all, or ids $6), as get-report-scope reads it; no row when out of reach.
-- not null: fingerprint
select report_scope_fingerprint(r.id, r.organization_id, $5, $6) as fingerprint
from reports r
where r.id = $1 and r.organization_id = $2 and ($3::boolean or r.id = any($4::uuid[]))
