-- The staged rows' statistics, so apply-import is planned for their real number and keys rather than a guess
-- (a temporary table has none until analysed, and autovacuum never does it).
analyze import_rows
