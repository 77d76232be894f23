-- Deletes organization :org and everything it owns (migration 018): {clients, factRows} deleted.
select clients, fact_rows::float8 as "factRows" from delete_organization(:org)
