-- Returns one row: report $1 in the API's shape when organization $2's client may read it (report allow-list $3 all,
-- or ids $4; ad-account allow-list $5 all, or ids $6), else null; and, read in the same statement, the organization's
-- report version (migration 010).
-- not null: version
select (select report_definition(r, $5, $6)
        from reports r
        where r.id = $1 and r.organization_id = $2 and ($3::boolean or r.id = any($4::uuid[]))) as item,
       coalesce((select v.version from report_versions v where v.organization_id = $2), 0)::float8 as version
