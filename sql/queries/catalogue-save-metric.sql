-- Creates or changes organization :org's custom metric :name: display name :displayName, kind :kind, unit :unit,
-- description :description, formula :formula.
insert into custom_metrics as m (organization_id, name, display_name, kind, unit, description, formula)
values (:org, :name, :displayName, :kind, :unit, :description, :formula)
on conflict (organization_id, name)
do update set display_name = excluded.display_name, kind = excluded.kind, unit = excluded.unit,
              description = excluded.description, formula = excluded.formula, slot = null, whole = null,
              conversion_derived = false
