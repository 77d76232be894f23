-- Fills synthetic daily facts for every creative of organization :org from day :from to day :to (inclusive), keeping
-- rows that exist. Numbers are a deterministic function of creative and day, in the ad account's currency. Returns
-- {rows}.
-- not null: rows
with inserted as (
  insert into facts (organization_id, ad_account_id, campaign_id, creative_id, day,
                     impressions, clicks, spend, conversions, conversion_value, video_views, video_completions)
  select g.organization_id, g.ad_account_id, g.campaign_id, g.creative_id, g.day,
         g.impressions, g.clicks,
         round((g.clicks * (0.2 + g.r2 * 1.8))::numeric, 2)::double precision,
         round((g.clicks * (0.02 + g.r3 * 0.06))::numeric, 2)::double precision,
         round((g.clicks * (0.02 + g.r3 * 0.06) * (20 + g.r4 * 60))::numeric, 2)::double precision,
         g.views, (g.views * (0.3 + g.r4 * 0.4))::bigint
  from (
    select cr.organization_id, c.ad_account_id, cr.campaign_id, cr.id as creative_id, d::date as day,
           f.impressions, (f.impressions * (0.01 + f.r1 * 0.04))::bigint as clicks,
           case when cr.format = 'video' then (f.impressions * (0.2 + f.r2 * 0.3))::bigint else 0 end as views,
           f.r2, f.r3, f.r4
    from creatives cr
    join campaigns c on c.id = cr.campaign_id
    cross join generate_series(:from::date, :to::date, interval '1 day') d
    cross join lateral (
      select (200 + (abs(hashtext(cr.id::text || d::date::text)) % 5000)
              * (case when extract(isodow from d) >= 6 then 0.7 else 1.0 end))::bigint as impressions,
             (abs(hashtext('1' || cr.id::text || d::date::text)) % 1000) / 1000.0 as r1,
             (abs(hashtext('2' || cr.id::text || d::date::text)) % 1000) / 1000.0 as r2,
             (abs(hashtext('3' || cr.id::text || d::date::text)) % 1000) / 1000.0 as r3,
             (abs(hashtext('4' || cr.id::text || d::date::text)) % 1000) / 1000.0 as r4
    ) f
    where cr.organization_id = :org
  ) g
  on conflict do nothing
  returning 1
)
select count(*)::int as rows from inserted
