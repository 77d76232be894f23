-- Ends backend :pid (one of the service's own: the same role may end its own backends). Returns {terminated}.
select pg_terminate_backend(:pid::int) as terminated
