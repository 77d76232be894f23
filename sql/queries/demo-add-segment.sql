-- A demo segment: id :id of organization :org, name :name, description :description; made once.
insert into segments (id, organization_id, name, description) values (:id, :org, :name, :description) on conflict (id) do nothing
