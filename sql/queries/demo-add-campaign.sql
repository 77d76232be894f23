-- A demo campaign: id $1 of organization $2 in ad account $3, external id $4, name $5, status $6; made once.
insert into campaigns (id, organization_id, ad_account_id, external_id, name, status) values ($1, $2, $3, $4, $5, $6)
on conflict (id) do nothing
