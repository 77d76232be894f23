-- Records a successful fetch at :at for every ok ad account of organization :org.
update ad_accounts set last_fetched_at = :at where organization_id = :org and connection_status = 'ok'
