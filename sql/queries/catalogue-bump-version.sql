-- A new report version for organization :org (migration 010): what its reports answer may have changed (a segment's
-- campaigns, a custom metric's formula, an ad account's name), so no cached definition or ETag outlives the change.
insert into report_versions as v (organization_id, version) values (:org, 1)
on conflict (organization_id) do update set version = v.version + 1
