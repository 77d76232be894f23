-- A demo report: id $1 of organization $2, name $3, description $4, kind $5, currency $6, metrics $7, groupings $8;
-- made once.
insert into reports (id, organization_id, name, description, kind, currency, metrics, groupings)
values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict (id) do nothing
