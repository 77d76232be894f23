-- Returns one row {ok: 1} when the database answers.
select 1 as ok
