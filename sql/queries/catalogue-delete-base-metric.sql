-- Deletes organization $1's declared base metric $2, and its numbers from every fact: the slot they held is empty for
-- the next metric declared (docs/decisions.md §5). The facts' write stamps move (readout.updates_change), so every
-- answer that read them is read anew.
with gone as (
  delete from custom_metrics where organization_id = $1 and name = $2 and slot is not null returning slot
), changing as (
  select set_config('readout.updates_change', 'on', true) as set
)
update facts f set declared[g.slot] = 0
from gone g, changing
where f.organization_id = $1 and f.declared[g.slot] <> 0
