-- Returns one row: organization :org's catalogue as `readout apply` compares it (docs/decisions.md §12), each list in
-- the order `config export` writes it. Ad accounts and campaigns are named by their platform keys, segments by name.
-- Declared base metrics (a slot, no formula) and custom metrics share a table (migration 047).
select
  coalesce((select json_agg(json_build_object(
      'id', a.id, 'platform', a.platform, 'externalId', a.external_id, 'name', a.name, 'currency', a.currency,
      'timeZone', a.time_zone) order by a.platform, a.external_id)
    from ad_accounts a where a.organization_id = :org), '[]') as "adAccounts",
  coalesce((select json_agg(json_build_object(
      'id', m.id, 'name', m.name, 'displayName', m.display_name, 'kind', m.kind, 'whole', m.whole,
      'conversionDerived', m.conversion_derived, 'description', m.description, 'slot', m.slot) order by m.name)
    from custom_metrics m where m.organization_id = :org and m.slot is not null), '[]') as "baseMetrics",
  coalesce((select json_agg(json_build_object(
      'id', m.id, 'name', m.name, 'displayName', m.display_name, 'kind', m.kind, 'unit', m.unit,
      'description', m.description, 'formula', m.formula) order by m.name)
    from custom_metrics m where m.organization_id = :org and m.slot is null), '[]') as metrics,
  coalesce((select json_agg(json_build_object(
      'id', s.id, 'name', s.name, 'description', s.description,
      'campaigns', coalesce((
        select array_agg(a.platform || '/' || a.external_id || '/' || c.external_id order by a.platform, a.external_id, c.external_id)
        from segment_campaigns sc join campaigns c on c.id = sc.campaign_id join ad_accounts a on a.id = c.ad_account_id
        where sc.segment_id = s.id), '{}')) order by s.name, s.id)
    from segments s where s.organization_id = :org), '[]') as segments,
  coalesce((select json_agg(json_build_object(
      'id', r.id, 'name', r.name, 'description', r.description, 'kind', r.kind, 'currency', r.currency,
      'adAccounts', coalesce((
        select array_agg(a.platform || '/' || a.external_id order by a.platform, a.external_id)
        from report_ad_accounts ra join ad_accounts a on a.id = ra.ad_account_id where ra.report_id = r.id), '{}'),
      'segments', coalesce((
        select array_agg(s.name order by s.name)
        from report_segments rs join segments s on s.id = rs.segment_id where rs.report_id = r.id), '{}'),
      'metrics', r.metrics, 'groupings', r.groupings) order by r.name, r.created_at, r.id)
    from reports r where r.organization_id = :org), '[]') as reports
