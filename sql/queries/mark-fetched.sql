-- Records a successful platform fetch at $2 for the ad accounts $1 whose connection is ok.
update ad_accounts set last_fetched_at = $2 where id = any($1::uuid[]) and connection_status = 'ok'
