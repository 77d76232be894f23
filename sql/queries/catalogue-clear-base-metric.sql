-- Empties organization :org's declared base metric :metric's numbers in every fact, while it is still declared, so the
-- sums kept of them follow (migration 049); catalogue-delete-base-metric then removes it, its slot free for the next.
-- The facts' write stamps move (readout.updates_change), so every answer that read them is read anew.
with metric as (
  select m.slot, set_config('readout.updates_change', 'on', true) as changing
  from custom_metrics m where m.organization_id = :org and m.name = :metric and m.slot is not null
)
update facts f set declared[m.slot] = 0
from metric m
where f.organization_id = :org and f.declared[m.slot] <> 0
