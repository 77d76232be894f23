-- Creates or changes organization :org's declared base metric :name (docs/decisions.md §5): display name :displayName,
-- kind :kind, whole :whole, conversion-derived :conversionDerived, description :description, slot :slot (its place in a
-- fact's `declared` numbers), unit by kind.
insert into custom_metrics as m (organization_id, name, display_name, kind, unit, description, formula, slot, whole,
                                 conversion_derived)
values (:org, :name, :displayName, :kind, case when :kind = 'money' then 'currency' else 'count' end, :description, null, :slot, :whole, :conversionDerived)
on conflict (organization_id, name)
do update set display_name = excluded.display_name, kind = excluded.kind, unit = excluded.unit,
              description = excluded.description, formula = null, slot = excluded.slot, whole = excluded.whole,
              conversion_derived = excluded.conversion_derived
