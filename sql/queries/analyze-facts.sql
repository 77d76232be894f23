-- Refreshes the planner's statistics of the facts and every rollup, after a load changed them (import, generate,
-- org delete): the first report read after a load is planned from what is there, not from an empty table's guess.
analyze facts, facts_monthly, facts_campaign_daily, facts_campaign_monthly, facts_account_daily, facts_monthly_converted,
  facts_campaign_daily_converted, facts_campaign_monthly_converted, facts_account_daily_converted, facts_spans,
  facts_campaign_spans, fact_writes, fact_account_writes
