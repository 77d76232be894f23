-- A demo creative: id $1 of organization $2 in campaign $3, external id $4, name $5, format $6; made once.
insert into creatives (id, organization_id, campaign_id, external_id, name, format) values ($1, $2, $3, $4, $5, $6)
on conflict (id) do nothing
