-- Refreshes the planner's statistics of the catalogue and the converted rollups a new report currency builds, after
-- apply changed them.
analyze ad_accounts, reports, report_ad_accounts, report_segments, segments, segment_campaigns, custom_metrics, converted_currencies,
  facts_monthly_converted, facts_campaign_daily_converted, facts_campaign_monthly_converted, facts_spans, facts_campaign_spans
