-- The demo's organization $1 (name $2, currency $3), made once: a later demo run leaves it as it is.
insert into organizations (id, name, currency) values ($1, $2, $3) on conflict (id) do nothing
