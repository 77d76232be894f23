-- Ends backend $1 (one of the service's own: the same role may end its own backends). Returns {terminated}.
select pg_terminate_backend($1::int) as terminated
