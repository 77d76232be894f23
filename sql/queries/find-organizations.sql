-- Which of the organizations $1 exist: {id}.
select id from organizations where id = any($1::uuid[])
