-- Stores imported rates: :currencies, :days, :usdPerUnit USD per unit (arrays of one length). A day already loaded for
-- a currency is replaced, and an imported rate replaces the demo's. Returns {rows}.
-- not null: rows
with written as (
  insert into fx_rates (currency, day, usd_per_unit, source)
  select r.currency, r.day, r.usd_per_unit, 'import' from unnest(:currencies::text[], :days::date[], :usdPerUnit::float8[]) as r(currency, day, usd_per_unit)
  on conflict (currency, day) do update set usd_per_unit = excluded.usd_per_unit, source = 'import'
  returning 1
)
select count(*)::int as rows from written
