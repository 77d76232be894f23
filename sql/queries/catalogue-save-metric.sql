-- Creates or changes organization $1's custom metric $2: display name $3, kind $4, unit $5, description $6, formula $7.
insert into custom_metrics as m (organization_id, name, display_name, kind, unit, description, formula)
values ($1, $2, $3, $4, $5, $6, $7)
on conflict (organization_id, name)
do update set display_name = excluded.display_name, kind = excluded.kind, unit = excluded.unit,
              description = excluded.description, formula = excluded.formula, slot = null, whole = null,
              conversion_derived = false
