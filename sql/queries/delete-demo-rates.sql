-- Removes the demo's rates of currencies $1, before an import of theirs: a real series is never mixed with an invented
-- one (docs/decisions.md §11), where the demo's would otherwise stand on every day the import does not name. Returns {rows}.
-- not null: rows
with deleted as (
  delete from fx_rates where source = 'demo' and currency = any($1::text[]) returning 1
)
select count(*)::int as rows from deleted
