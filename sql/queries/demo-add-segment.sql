-- A demo segment: id $1 of organization $2, name $3, description $4; made once.
insert into segments (id, organization_id, name, description) values ($1, $2, $3, $4) on conflict (id) do nothing
