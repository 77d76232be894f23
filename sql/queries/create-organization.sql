-- Creates an organization ($1 name, $2 currency); returns its id.
insert into organizations (name, currency) values ($1, $2) returning id
