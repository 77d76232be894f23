-- Creates an organization (:name, :currency); returns its id.
insert into organizations (name, currency) values (:name, :currency) returning id
