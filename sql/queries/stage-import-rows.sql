-- Adds a batch of facts to the staging table, one array a column: $1 lines, $2 creatives, $3 days, $4 their declared
-- base metrics' numbers as array text (null: none), then one array for each base metric, in their order
-- (src/dataModel.ts).
insert into import_rows (line, creative, day, declared, {{base: %}})
select t.line, t.creative, t.day, t.declared::float8[], {{base: t.%}}
from unnest($1::int[], $2::int[], $3::date[], $4::text[],
            {{base: $#4::bigint[] ;; money: $#4::float8[] ;; decimal: $#4::float8[]}})
  as t(line, creative, day, declared, {{base: %}})
