-- Records a successful platform fetch at :at for the ad accounts :adAccounts whose connection is ok.
update ad_accounts set last_fetched_at = :at where id = any(:adAccounts::uuid[]) and connection_status = 'ok'
