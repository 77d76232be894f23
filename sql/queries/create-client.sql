-- Creates an API client; returns its id. $1 id, $2 organization, $3 name, $4 scopes, $5..$8 allow-lists.
insert into api_clients (id, organization_id, name, scopes, reports_all, report_ids, ad_accounts_all, ad_account_ids)
values ($1, $2, $3, $4, $5, $6, $7, $8)
returning id
