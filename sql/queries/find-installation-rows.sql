-- Returns whether readout's schema holds an installation: an organization, a client, a fact or an exchange rate.
-- not null: installed
select
  exists (select 1 from organizations)
  or exists (select 1 from api_clients)
  or exists (select 1 from facts)
  or exists (select 1 from fx_rates) as installed
