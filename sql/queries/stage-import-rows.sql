-- Adds a batch of facts to the staging table, one array a column: :lines, :creatives, :days, :declared their declared
-- base metrics' numbers as array text (null: none), then one array for each base metric, named after it, in their order
-- (src/dataModel.ts).
insert into import_rows (line, creative, day, declared, {{base: %}})
select t.line, t.creative, t.day, t.declared::float8[], {{base: t.%}}
from unnest(:lines::int[], :creatives::int[], :days::date[], :declared::text[],
            {{base: :%::bigint[] ;; money: :%::float8[] ;; decimal: :%::float8[]}})
  as t(line, creative, day, declared, {{base: %}})
