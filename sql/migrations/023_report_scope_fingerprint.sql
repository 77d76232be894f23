-- 023: a fingerprint of every row a report's scope (get-report-scope) is read from, so a 304 can learn in a one-row
-- read begun after it came that nothing its ETag depends on has changed since the scope was read, without reading
-- and rebuilding the scope itself (routes/keptAnswers.ts).
--
-- A row's xmin is the transaction that wrote the version a snapshot sees. A transaction that commits after one read
-- and before the next leaves its own xmin on every row it inserts or updates, a number no row the first read saw can
-- carry, and every row it deletes is missing from the list: either way the text differs. The lists are ordered, so
-- equal text is the same rows in the same versions. The reverse need not hold (VACUUM FREEZE rewrites xmin): a
-- fingerprint that moved without a write only costs a fresh read of the scope.
--
-- What it covers is what the scope reads: the report, the organization's report version (migration 010, which
-- `readout apply` also moves), the ad accounts this client may see with their report links and fact write counts
-- (migration 021, rates included), the report's segment links and their segments' campaigns, and the organization's
-- custom metrics. A segment may hold thousands of campaigns: theirs go in as the md5 of their list. It takes the same
-- arguments as the scope's filters on them. PL/pgSQL, so each connection plans it once.
create function report_scope_fingerprint(p_report uuid, p_org uuid, p_all_accounts boolean, p_accounts uuid[])
returns text
language plpgsql stable as $$
begin
  return (select concat_ws(' ', r.xmin,
    (select v.version from report_versions v where v.organization_id = p_org),
    (select string_agg(concat_ws(':', ra.xmin, a.xmin, w.xmin), ',' order by a.id)
       from report_ad_accounts ra
       join ad_accounts a on a.id = ra.ad_account_id
       left join fact_account_writes w on w.ad_account_id = a.id
       where ra.report_id = r.id and (p_all_accounts or a.id = any(p_accounts))),
    (select string_agg(rs.xmin::text, ',' order by rs.segment_id) from report_segments rs where rs.report_id = r.id),
    (select md5(string_agg(concat_ws(':', sc.segment_id, sc.xmin), ',' order by sc.segment_id, sc.campaign_id))
       from report_segments rs join segment_campaigns sc on sc.segment_id = rs.segment_id
       where rs.report_id = r.id),
    (select string_agg(m.xmin::text, ',' order by m.id) from custom_metrics m where m.organization_id = p_org))
  from reports r
  where r.id = p_report and r.organization_id = p_org);
end
$$;
