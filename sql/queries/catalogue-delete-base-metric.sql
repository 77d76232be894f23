-- Deletes organization :org's declared base metric :metric (its numbers emptied first: catalogue-clear-base-metric).
delete from custom_metrics where organization_id = :org and name = :metric and slot is not null
