-- 027: total, month and ad-account answers of a report over whole accounts read the accounts' daily rollups (022):
-- a row an account and day, where the campaigns' rollups give a row a campaign and month plus its edge days, several
-- times as many (BENCHMARKS.md, "Growth"). A segment report's answers, which read only its segments' campaigns
-- (p_campaigns), read the campaigns' rollups. Either way the rows carry ad_account_id and day, and money that
-- cannot be converted is null, as in both sources.
create function report_account_facts(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
returns table(ad_account_id uuid, day date, impressions bigint, clicks bigint, spend double precision,
              conversions double precision, conversion_value double precision, video_views bigint,
              video_completions bigint)
language sql stable as $$
  select f.ad_account_id, f.day, f.impressions, f.clicks, f.spend, f.conversions, f.conversion_value, f.video_views,
         f.video_completions
  from report_account_days(p_accounts, p_from, p_to, p_currency) f
  where p_campaigns is null
  union all
  select f.ad_account_id, f.day, f.impressions, f.clicks, f.spend, f.conversions, f.conversion_value, f.video_views,
         f.video_completions
  from report_campaign_facts(p_accounts, p_campaigns, p_from, p_to, p_currency) f
  where p_campaigns is not null
$$;
