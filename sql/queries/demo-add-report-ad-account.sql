-- Ad account $3 in the demo report $2 of organization $1.
insert into report_ad_accounts (organization_id, report_id, ad_account_id) values ($1, $2, $3) on conflict do nothing
