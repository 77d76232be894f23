-- Refreshes the planner's statistics of the rates and the rollups converted at them, after fx import changed them.
analyze fx_rates, converted_currencies, facts_monthly_converted, facts_campaign_daily_converted, facts_campaign_monthly_converted,
  facts_spans, facts_campaign_spans
