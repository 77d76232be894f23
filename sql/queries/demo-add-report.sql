-- A demo report: id :id of organization :org, name :name, description :description, kind :kind, currency :currency,
-- metrics :metrics, groupings :groupings; made once.
insert into reports (id, organization_id, name, description, kind, currency, metrics, groupings)
values (:id, :org, :name, :description, :kind, :currency, :metrics, :groupings) on conflict (id) do nothing
