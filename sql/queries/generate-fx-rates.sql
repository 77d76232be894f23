-- Fills daily USD rates for currency :currency from day :from to day :to around :usdPerUnit USD per unit, skipping
-- weekends (so a conversion must fall back to the latest earlier rate) and keeping rates that exist: nothing for a
-- currency that has imported rates, and its own marked as demo rates. Returns {rows}.
with inserted as (
  insert into fx_rates (currency, day, usd_per_unit, source)
  select :currency, d::date, round((:usdPerUnit * (1 + ((abs(hashtext(:currency || d::date::text)) % 400) - 200) / 10000.0))::numeric, 6)::double precision, 'demo'
  from generate_series(:from::date, :to::date, interval '1 day') d
  where extract(isodow from d) < 6
    -- A currency with imported rates is real data: invented days between them would hide the carried-forward rate.
    and not exists (select 1 from fx_rates r where r.currency = :currency and r.source = 'import')
  on conflict do nothing
  returning 1
)
select count(*)::int as rows from inserted
