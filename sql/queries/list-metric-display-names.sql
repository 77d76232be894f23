-- Returns every metric name organization :org knows with its display name: the system ones, then its custom ones.
-- not null: name, display_name
select name, display_name from system_metrics
union all
select name, display_name from custom_metrics where organization_id = :org
