-- Adds a batch of facts to the staging table, one array a column ($1 .. $11, in the table's order); $11 the declared
-- base metrics' numbers of each, as array text (null: none).
insert into import_rows (line, creative, day, impressions, clicks, spend, conversions, conversion_value, video_views,
                         video_completions, declared)
select l, c, d, i, k, s, v, cv, vv, vc, x::float8[]
from unnest($1::int[], $2::int[], $3::date[], $4::bigint[], $5::bigint[], $6::float8[], $7::float8[], $8::float8[],
            $9::bigint[], $10::bigint[], $11::text[]) as t(l, c, d, i, k, s, v, cv, vv, vc, x)
