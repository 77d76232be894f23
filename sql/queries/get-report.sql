-- Returns one row: report :report in the API's shape when organization :org's client may read it (report allow-list
-- :reportsAll all, or ids :reportIds; ad-account allow-list :adAccountsAll all, or ids :adAccountIds), else null; and,
-- read in the same statement, the organization's report version (migration 010).
-- not null: version
select (select report_definition(r, :adAccountsAll, :adAccountIds)
        from reports r
        where r.id = :report and r.organization_id = :org and (:reportsAll::boolean or r.id = any(:reportIds::uuid[]))) as item,
       coalesce((select v.version from report_versions v where v.organization_id = :org), 0)::float8 as version
