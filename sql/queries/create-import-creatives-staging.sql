-- Creates the transaction's staging table for the creatives an import names (dropped at commit): each by its number
-- and platform ids, with what its last line says of it, its account and campaign; the account's first line, to name
-- it in an error; repeats: its days did not rise line by line, so a day of it may be given twice.
create temporary table import_creatives (
  creative integer, line integer, platform text, account_external_id text, account_name text, currency text,
  account_first_line integer, campaign_external_id text, campaign_name text, campaign_status text,
  creative_external_id text, creative_name text, format text, repeats boolean
) on commit drop
