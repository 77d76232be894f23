-- A demo custom metric of organization $1: name $2, display name $3, kind $4, unit $5, description $6, formula $7;
-- made once.
insert into custom_metrics (organization_id, name, display_name, kind, unit, description, formula)
values ($1, $2, $3, $4, $5, $6, $7) on conflict (organization_id, name) do nothing
