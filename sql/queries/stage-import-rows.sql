-- Adds a batch of facts to the staging table, one array a column ($1 .. $10, in the table's order).
insert into import_rows
select * from unnest($1::int[], $2::int[], $3::date[], $4::bigint[], $5::bigint[], $6::float8[], $7::float8[],
                     $8::float8[], $9::bigint[], $10::bigint[])
