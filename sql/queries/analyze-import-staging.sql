-- The staged creatives' statistics, so the import's statements are planned for their real number rather than a
-- guess (a temporary table has none until analysed, and autovacuum never does it).
analyze import_creatives
