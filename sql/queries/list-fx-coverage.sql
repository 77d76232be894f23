-- Per currency: first and last day with a rate, how many days, and where the rates came from (import, demo).
-- Columns: currency, first, last, days, sources.
-- not null: first, last, days, sources
select currency, min(day)::text as first, max(day)::text as last, count(*)::int as days,
       array_agg(distinct source order by source) as sources
from fx_rates
group by currency
order by currency
