-- Returns what a data request on report :report depends on, if organization :org's client may read it (report
-- allow-list :reportsAll all, or ids :reportIds): the definition, the ad accounts it may see (ad-account allow-list
-- :adAccountsAll all, or ids :adAccountIds) with their currency, connection, freshness and count of fact writes
-- (migration 021), its segments and their campaigns, and the organization's custom and declared base metrics; and its
-- fingerprint (migration 023) and the snapshot it was all read in (as get-report-fingerprint compares it). version
-- changes with the report's definition, and with the organization's report version (migration 010), which `readout
-- apply` moves whenever what a report answers may change: a segment's campaigns, an ad account's name.
-- not null: version, fingerprint
select r.id, r.name, r.kind, r.currency, r.metrics, r.groupings,
       to_char(r.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || ' '
         || coalesce((select v.version from report_versions v where v.organization_id = r.organization_id), 0) as version,
       coalesce((
         select json_agg(json_build_object('id', a.id, 'currency', a.currency, 'status', a.connection_status,
                  'fetchedAt', to_char(a.last_fetched_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                  'writes', coalesce((select w.writes from fact_account_writes w where w.ad_account_id = a.id), 0)) order by a.id)
         from report_ad_accounts ra join ad_accounts a on a.id = ra.ad_account_id
         where ra.report_id = r.id and (:adAccountsAll::boolean or a.id = any(:adAccountIds::uuid[]))), '[]') as accounts,
       coalesce((
         select json_agg(json_build_object('id', rs.segment_id,
                  'campaigns', coalesce((select json_agg(sc.campaign_id) from segment_campaigns sc where sc.segment_id = rs.segment_id), '[]'))
                  order by rs.segment_id)
         from report_segments rs where rs.report_id = r.id), '[]') as segments,
       coalesce((
         select json_agg(json_build_object('name', m.name, 'formula', m.formula, 'kind', m.kind, 'slot', m.slot,
                  'conversionDerived', m.conversion_derived) order by m.name)
         from custom_metrics m where m.organization_id = r.organization_id), '[]') as custom_metrics,
       report_scope_fingerprint(r.id, r.organization_id, :adAccountsAll, :adAccountIds) as fingerprint,
       case when pg_is_in_recovery() then null else pg_current_snapshot()::text end as snapshot
from reports r
where r.id = :report and r.organization_id = :org and (:reportsAll::boolean or r.id = any(:reportIds::uuid[]))
