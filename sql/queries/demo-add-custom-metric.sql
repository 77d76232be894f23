-- A demo custom metric of organization :org: name :name, display name :displayName, kind :kind, unit :unit, description
-- :description, formula :formula; made once.
insert into custom_metrics (organization_id, name, display_name, kind, unit, description, formula)
values (:org, :name, :displayName, :kind, :unit, :description, :formula) on conflict (organization_id, name) do nothing
