-- Deletes organization $1's custom metric $2.
delete from custom_metrics where organization_id = $1 and name = $2 and slot is null
