-- Adds a batch of facts to the staging table, one array a column: $1 lines, $2 creatives, $3 days, $4 each fact's base
-- metrics as the file gives them, comma-separated in their order (src/dataModel.ts), $5 its declared base
-- metrics' numbers as array text (null: none).
insert into import_rows (line, creative, day, {{base: %}}, declared)
select t.line, t.creative, t.day, {{base: n.v[#]::bigint ;; money: n.v[#]::float8 ;; decimal: n.v[#]::float8}},
       t.declared::float8[]
from unnest($1::int[], $2::int[], $3::date[], $4::text[], $5::text[]) as t(line, creative, day, numbers, declared)
cross join lateral (select string_to_array(t.numbers, ',') as v) n
