-- Creates the transaction's staging table for imported rows (dropped at commit).
create temporary table import_rows (
  line integer, day date, platform text, account_external_id text, account_name text, currency text,
  campaign_external_id text, campaign_name text, creative_external_id text, creative_name text, format text,
  impressions bigint, clicks bigint, spend double precision, conversions double precision, conversion_value double precision,
  video_views bigint, video_completions bigint, campaign_status text
) on commit drop
