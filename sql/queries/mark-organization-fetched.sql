-- Records a successful fetch at $2 for every ok ad account of organization $1.
update ad_accounts set last_fetched_at = $2 where organization_id = $1 and connection_status = 'ok'
