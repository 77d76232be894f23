-- Removes the demo's rates of currencies :currencies, before an import of theirs: a real series is never mixed with an
-- invented one (docs/decisions.md §11), where the demo's would otherwise stand on every day the import does not name.
-- Returns the currencies whose demo rates went.
-- not null: currencies
with deleted as (
  delete from fx_rates where source = 'demo' and currency = any(:currencies::text[]) returning currency
)
select coalesce(array_agg(distinct currency order by currency), '{}') as currencies from deleted
