-- Sets ad account $1's platform connection status to $2; returns the account if it exists.
update ad_accounts set connection_status = $2 where id = $1 returning id, connection_status
