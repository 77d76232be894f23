-- 035: a creative answer's names read with its creatives' campaigns, not looked up one creative at a time: each of a
-- long answer's sums would probe creatives by id, a random place in an index of every organization's creatives, once
-- a row (BENCHMARKS.md, "Spans"). The report's accounts' creatives are read campaign by campaign from one index that
-- holds what an answer shows, and hashed once. (The one-currency CSV file keeps its join: it is planned for parallel
-- workers.)
create index creatives_answer on creatives (campaign_id) include (id, name, external_id, format);
drop index creatives_campaign;

-- The creatives of p_accounts' campaigns (of p_campaigns, when given): what a creative answer shows of each. Read by
-- campaign, so a report of a few accounts reads only theirs; `offset 0` keeps it one set, joined by hash.
create function report_creatives(p_accounts uuid[], p_campaigns uuid[])
returns table(id uuid, name text, campaign_id uuid, external_id text, format text)
language sql stable as $$
  select c.id, c.name, c.campaign_id, c.external_id, c.format
  from campaigns k
  cross join lateral (select * from creatives c where c.campaign_id = k.id offset 0) c
  where k.ad_account_id = any(p_accounts) and (p_campaigns is null or k.id = any(p_campaigns))
  offset 0
$$;
