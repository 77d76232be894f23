-- The demo's organization :id (name :name, currency :currency), made once: a later demo run leaves it as it is.
insert into organizations (id, name, currency) values (:id, :name, :currency) on conflict (id) do nothing
