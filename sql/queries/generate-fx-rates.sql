-- Fills daily USD rates for currency $1 from day $2 to day $3 around $4 USD per unit, skipping weekends (so a
-- conversion must fall back to the latest earlier rate) and keeping rates that exist. Returns {rows}.
with inserted as (
  insert into fx_rates (currency, day, usd_per_unit)
  select $1, d::date, round(($4 * (1 + ((abs(hashtext($1 || d::date::text)) % 400) - 200) / 10000.0))::numeric, 6)::double precision
  from generate_series($2::date, $3::date, interval '1 day') d
  where extract(isodow from d) < 6
  on conflict do nothing
  returning 1
)
select count(*)::int as rows from inserted
