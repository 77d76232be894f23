-- 015: exchange rates an operator loads (docs/decisions.md §5, §11). Imported rates always win over the demo's, so each
-- rate says where it came from; and money on a day before a currency's first rate is unknown, not converted at a later
-- rate.
alter table fx_rates add column source text not null default 'import' check (source in ('import', 'demo'));
-- Every rate held before this migration is the demo's.
update fx_rates set source = 'demo';

-- USD per unit of a currency on a day: that day's rate, else the latest earlier one; null when there is none (the
-- money cannot be converted, and every money metric of a row that holds it is null). USD is 1.
create or replace function usd_rate_on(p_currency text, p_day date)
returns double precision
language sql stable as $$
  select case when p_currency = 'USD' then 1.0::double precision
    else (select r.usd_per_unit from fx_rates r where r.currency = p_currency and r.day <= p_day order by r.day desc limit 1) end
$$;
