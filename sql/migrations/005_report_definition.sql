-- 005: one definition of a report's API shape, shared by the list and the single read.
create function report_definition(r reports, p_accounts_all boolean, p_account_ids uuid[])
returns json
language sql stable as $$
  select json_build_object(
    'id', r.id, 'organizationId', r.organization_id, 'name', r.name, 'description', r.description,
    'kind', r.kind, 'currency', r.currency,
    'adAccountIds', coalesce((
      select json_agg(ra.ad_account_id order by ra.ad_account_id)
      from report_ad_accounts ra
      where ra.report_id = r.id and (p_accounts_all or ra.ad_account_id = any(p_account_ids))), '[]'),
    'segmentIds', coalesce((
      select json_agg(rs.segment_id order by rs.segment_id) from report_segments rs where rs.report_id = r.id), '[]'),
    'metrics', to_json(r.metrics), 'groupings', to_json(r.groupings),
    'createdAt', to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updatedAt', to_char(r.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
$$;
