-- Sets ad account :adAccount's platform connection status to :status; returns the account if it exists.
update ad_accounts set connection_status = :status where id = :adAccount returning id, connection_status
