-- A load that grew the declared base metrics' sums (migrations 048, 050) by a tenth has them analysed too, as the
-- other tables of sums are (migration 040): a backfill or a first large load would leave them planned as empty.
create or replace function facts_tables_to_analyze(p_all boolean) returns setof text language sql stable as $$
  select c.relname::text
  from pg_class c
  where c.oid = any(array['facts', 'facts_monthly', 'facts_campaign_daily', 'facts_campaign_monthly',
                          'facts_account_daily', 'facts_monthly_converted', 'facts_campaign_daily_converted',
                          'facts_campaign_monthly_converted', 'facts_account_daily_converted', 'facts_spans',
                          'facts_campaign_spans', 'fact_writes', 'fact_account_writes', 'declared_campaign_daily',
                          'declared_campaign_monthly', 'declared_account_daily', 'declared_account_monthly',
                          'declared_creative_monthly']::regclass[])
    and (p_all or c.reltuples < 0 or c.relpages < 128
         or pg_relation_size(c.oid) > 1.1 * c.relpages * current_setting('block_size')::bigint)
  order by pg_relation_size(c.oid) desc, c.relname
$$;

analyze declared_campaign_daily, declared_campaign_monthly, declared_account_daily, declared_account_monthly,
  declared_creative_monthly;
