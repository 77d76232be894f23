-- Adds a batch of rows to the staging table, one array a column ($1 .. $19, in the table's order; a null status
-- leaves a campaign's as it is).
insert into import_rows
select * from unnest($1::int[], $2::date[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                     $9::text[], $10::text[], $11::text[], $12::bigint[], $13::bigint[], $14::float8[], $15::float8[],
                     $16::float8[], $17::bigint[], $18::bigint[], $19::text[])
