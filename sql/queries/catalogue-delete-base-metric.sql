-- Deletes organization $1's declared base metric $2 (its numbers emptied first: catalogue-clear-base-metric).
delete from custom_metrics where organization_id = $1 and name = $2 and slot is not null
