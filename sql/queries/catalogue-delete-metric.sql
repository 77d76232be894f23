-- Deletes organization :org's custom metric :metric.
delete from custom_metrics where organization_id = :org and name = :metric and slot is null
