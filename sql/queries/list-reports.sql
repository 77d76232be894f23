-- Returns one row: total and page :page (size :size) of the reports of organization :org that the report allow-list
-- (:reportsAll all, or ids :reportIds) lets this client read; ordered by name, then id. Ad accounts shown are cut by
-- the ad-account allow-list (:adAccountsAll all, or ids :adAccountIds). And, read in the same statement, the
-- organization's report version (migration 010).
-- not null: total, version
with visible as (
  select r.*
  from reports r
  where r.organization_id = :org and (:reportsAll::boolean or r.id = any(:reportIds::uuid[]))
)
select
  (select count(*)::int from visible) as total,
  coalesce((
    select json_agg(report_definition(r, :adAccountsAll, :adAccountIds) order by r.name, r.id)
    from (select * from visible order by name, id limit :size offset (:page::bigint - 1) * :size) r
  ), '[]') as items,
  coalesce((select v.version from report_versions v where v.organization_id = :org), 0)::float8 as version
