-- 004: the marketing data model of docs/decisions.md §5. Every tenant table carries organization_id (Citus-ready).

create table ad_accounts (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  platform text not null check (platform in ('google-ads', 'meta-ads', 'linkedin-ads', 'microsoft-ads', 'tiktok-ads')),
  external_id text not null,
  name text not null,
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  time_zone text not null default 'UTC',
  connection_status text not null default 'ok' check (connection_status in ('ok', 'expired', 'permission-lost')),
  last_fetched_at timestamptz,
  unique (organization_id, platform, external_id)
);
create index ad_accounts_listing on ad_accounts (organization_id, name, id);

create table campaigns (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  ad_account_id uuid not null references ad_accounts (id),
  external_id text not null,
  name text not null,
  status text not null default 'active' check (status in ('active', 'paused', 'archived')),
  unique (ad_account_id, external_id)
);
create index campaigns_listing on campaigns (organization_id, name, id);
create index campaigns_ad_account on campaigns (ad_account_id);

create table creatives (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  campaign_id uuid not null references campaigns (id),
  external_id text not null,
  name text not null,
  format text not null check (format in ('image', 'video', 'text', 'carousel')),
  unique (campaign_id, external_id)
);
create index creatives_campaign on creatives (campaign_id);

create table segments (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  name text not null,
  description text not null default ''
);
create index segments_listing on segments (organization_id, name, id);

create table segment_campaigns (
  organization_id uuid not null references organizations (id),
  segment_id uuid not null references segments (id),
  campaign_id uuid not null references campaigns (id),
  primary key (segment_id, campaign_id)
);
create index segment_campaigns_campaign on segment_campaigns (campaign_id);

-- The system metric catalogue; position orders the listing.
create table system_metrics (
  name text primary key,
  display_name text not null,
  kind text not null check (kind in ('money', 'count', 'percent', 'ratio', 'decimal')),
  unit text not null,
  conversion_derived boolean not null,
  description text not null,
  position integer not null
);

insert into system_metrics (name, display_name, kind, unit, conversion_derived, description, position) values
  ('impressions', 'Impressions', 'count', 'impressions', false, 'Times an ad was shown.', 1),
  ('clicks', 'Clicks', 'count', 'clicks', false, 'Clicks on an ad.', 2),
  ('spend', 'Spend', 'money', 'currency', false, 'Amount spent, in the report''s currency.', 3),
  ('conversions', 'Conversions', 'decimal', 'conversions', true, 'Conversions attributed to the ads.', 4),
  ('conversion_value', 'Conversion value', 'money', 'currency', true, 'Value of the conversions, in the report''s currency.', 5),
  ('video_views', 'Video views', 'count', 'views', false, 'Video views.', 6),
  ('video_completions', 'Video completions', 'count', 'completions', false, 'Videos watched to the end.', 7),
  ('ctr', 'Click-through rate', 'percent', 'percent', false, 'clicks / impressions × 100.', 8),
  ('cpc', 'Cost per click', 'money', 'currency', false, 'spend / clicks.', 9),
  ('cpm', 'Cost per mille', 'money', 'currency', false, 'spend / impressions × 1000.', 10),
  ('cpa', 'Cost per acquisition', 'money', 'currency', true, 'spend / conversions.', 11),
  ('conversion_rate', 'Conversion rate', 'percent', 'percent', true, 'conversions / clicks × 100.', 12),
  ('roas', 'Return on ad spend', 'ratio', 'ratio', true, 'conversion_value / spend.', 13),
  ('view_rate', 'View rate', 'percent', 'percent', false, 'video_views / impressions × 100.', 14),
  ('completion_rate', 'Completion rate', 'percent', 'percent', false, 'video_completions / video_views × 100.', 15);

create table custom_metrics (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  name text not null check (name ~ '^[a-z][a-z0-9_]{0,62}$'),
  display_name text not null,
  kind text not null check (kind in ('money', 'count', 'percent', 'ratio', 'decimal')),
  unit text not null,
  description text not null default '',
  formula text not null,
  unique (organization_id, name)
);

create table reports (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  name text not null,
  description text not null default '',
  kind text not null check (kind in ('standard', 'segment', 'months')),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  metrics text[] not null default '{impressions,clicks,spend,ctr,cpc}',
  groupings text[] not null default '{total,campaign,month,ad-account,video,creative}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index reports_listing on reports (organization_id, name, id);

create table report_ad_accounts (
  organization_id uuid not null references organizations (id),
  report_id uuid not null references reports (id),
  ad_account_id uuid not null references ad_accounts (id),
  primary key (report_id, ad_account_id)
);

create table report_segments (
  organization_id uuid not null references organizations (id),
  report_id uuid not null references reports (id),
  segment_id uuid not null references segments (id),
  primary key (report_id, segment_id)
);

-- Daily numbers per creative, in the ad account's currency.
create table facts (
  organization_id uuid not null,
  ad_account_id uuid not null references ad_accounts (id),
  campaign_id uuid not null references campaigns (id),
  creative_id uuid not null references creatives (id),
  day date not null,
  impressions bigint not null default 0,
  clicks bigint not null default 0,
  spend double precision not null default 0,
  conversions double precision not null default 0,
  conversion_value double precision not null default 0,
  video_views bigint not null default 0,
  video_completions bigint not null default 0,
  primary key (ad_account_id, day, creative_id)
);

-- Daily exchange rates: what one unit of the currency is worth in USD that day (USD itself is 1, implicitly).
create table fx_rates (
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  day date not null,
  usd_per_unit double precision not null check (usd_per_unit > 0),
  primary key (currency, day)
);
