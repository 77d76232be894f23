-- The metrics organization $1's reports may use: the system catalogue in its order, then its custom metrics by name.
select name, "displayName", kind, unit, source, formula
from (
  select name, display_name as "displayName", kind, unit, 'system' as source, null::text as formula, 0 as part, position
  from system_metrics
  union all
  select name, display_name, kind, unit, 'custom', formula, 1, 0
  from custom_metrics where organization_id = $1
) m
order by part, position, name
