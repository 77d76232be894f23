-- Creates or changes organization $1's declared base metric $2 (docs/decisions.md §5): display name $3, kind $4, whole
-- $5, conversion-derived $6, description $7, slot $8 (its place in a fact's `declared` numbers), unit by kind.
insert into custom_metrics as m (organization_id, name, display_name, kind, unit, description, formula, slot, whole,
                                 conversion_derived)
values ($1, $2, $3, $4, case when $4 = 'money' then 'currency' else 'count' end, $7, null, $8, $5, $6)
on conflict (organization_id, name)
do update set display_name = excluded.display_name, kind = excluded.kind, unit = excluded.unit,
              description = excluded.description, formula = null, slot = excluded.slot, whole = excluded.whole,
              conversion_derived = excluded.conversion_derived
