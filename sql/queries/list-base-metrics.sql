-- Returns organization :org's declared base metrics (docs/decisions.md §5) as `readout import` reads them: the CSV
-- column of each name, its slot in a fact's numbers, whether its values are whole numbers.
-- not null: name, slot, kind, whole
select name, slot, kind, coalesce(whole, false) as whole
from custom_metrics
where organization_id = :org and slot is not null
order by slot
