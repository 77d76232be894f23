-- The schema as sql/migrations leaves it, written by `npm run sql:schema` (checked by test/schema.test.ts).
-- For reading only: databases are made and changed by the migrations, never from this file.

create table ad_accounts (
  id uuid default gen_random_uuid() not null,
  organization_id uuid not null,
  platform text not null,
  external_id text not null,
  name text not null,
  currency text not null,
  time_zone text default 'UTC'::text not null,
  connection_status text default 'ok'::text not null,
  last_fetched_at timestamp with time zone,
  constraint ad_accounts_pkey PRIMARY KEY (id),
  constraint ad_accounts_id_organization_id_key UNIQUE (id, organization_id),
  constraint ad_accounts_organization_id_platform_external_id_key UNIQUE (organization_id, platform, external_id),
  constraint ad_accounts_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id),
  constraint ad_accounts_connection_status_check CHECK (connection_status = ANY (ARRAY['ok'::text, 'expired'::text, 'permission-lost'::text])),
  constraint ad_accounts_currency_check CHECK (currency ~ '^[A-Z]{3}$'::text),
  constraint ad_accounts_platform_check CHECK (platform = ANY (ARRAY['google-ads'::text, 'meta-ads'::text, 'linkedin-ads'::text, 'microsoft-ads'::text, 'tiktok-ads'::text]))
);

create table api_clients (
  id text not null,
  organization_id uuid not null,
  name text not null,
  scopes text[] not null,
  reports_all boolean default false not null,
  report_ids uuid[] default '{}'::uuid[] not null,
  ad_accounts_all boolean default false not null,
  ad_account_ids uuid[] default '{}'::uuid[] not null,
  created_at timestamp with time zone default now() not null,
  revoked_at timestamp with time zone,
  constraint api_clients_pkey PRIMARY KEY (id),
  constraint api_clients_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id),
  constraint api_clients_id_check CHECK (id ~ '^rdc_[0-9a-f]{32}$'::text),
  constraint api_clients_name_check CHECK (length(name) >= 1 AND length(name) <= 200)
);

create table campaigns (
  id uuid default gen_random_uuid() not null,
  organization_id uuid not null,
  ad_account_id uuid not null,
  external_id text not null,
  name text not null,
  status text default 'active'::text not null,
  constraint campaigns_pkey PRIMARY KEY (id),
  constraint campaigns_ad_account_id_external_id_key UNIQUE (ad_account_id, external_id),
  constraint campaigns_id_organization_id_key UNIQUE (id, organization_id),
  constraint campaigns_ad_account_in_organization_fkey FOREIGN KEY (ad_account_id, organization_id) REFERENCES ad_accounts(id, organization_id),
  constraint campaigns_status_check CHECK (status = ANY (ARRAY['active'::text, 'paused'::text, 'archived'::text]))
);

create table client_secrets (
  id uuid default gen_random_uuid() not null,
  organization_id uuid not null,
  client_id text not null,
  secret_hash bytea not null,
  created_at timestamp with time zone default now() not null,
  expires_at timestamp with time zone,
  revoked_at timestamp with time zone,
  constraint client_secrets_pkey PRIMARY KEY (id),
  constraint client_secrets_client_id_fkey FOREIGN KEY (client_id) REFERENCES api_clients(id),
  constraint client_secrets_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id)
);

create table converted_currencies (
  organization_id uuid not null,
  currency text not null,
  constraint converted_currencies_pkey PRIMARY KEY (organization_id, currency),
  constraint converted_currencies_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE,
  constraint converted_currencies_currency_check CHECK (currency ~ '^[A-Z]{3}$'::text)
);

create table creatives (
  id uuid default gen_random_uuid() not null,
  organization_id uuid not null,
  campaign_id uuid not null,
  external_id text not null,
  name text not null,
  format text not null,
  constraint creatives_pkey PRIMARY KEY (id),
  constraint creatives_campaign_id_external_id_key UNIQUE (campaign_id, external_id),
  constraint creatives_campaign_in_organization_fkey FOREIGN KEY (campaign_id, organization_id) REFERENCES campaigns(id, organization_id),
  constraint creatives_format_check CHECK (format = ANY (ARRAY['image'::text, 'video'::text, 'text'::text, 'carousel'::text]))
);

create table custom_metrics (
  id uuid default gen_random_uuid() not null,
  organization_id uuid not null,
  name text not null,
  display_name text not null,
  kind text not null,
  unit text not null,
  description text default ''::text not null,
  formula text,
  slot smallint,
  whole boolean,
  conversion_derived boolean default false not null,
  constraint custom_metrics_pkey PRIMARY KEY (id),
  constraint custom_metrics_organization_id_name_key UNIQUE (organization_id, name),
  constraint custom_metrics_organization_id_slot_key UNIQUE (organization_id, slot),
  constraint custom_metrics_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id),
  constraint custom_metrics_declared_check CHECK ((slot IS NULL) = (formula IS NOT NULL) AND (slot IS NULL OR (kind = ANY (ARRAY['count'::text, 'money'::text])))),
  constraint custom_metrics_kind_check CHECK (kind = ANY (ARRAY['money'::text, 'count'::text, 'percent'::text, 'ratio'::text, 'decimal'::text])),
  constraint custom_metrics_name_check CHECK (name ~ '^[a-z][a-z0-9_]{0,62}$'::text),
  constraint custom_metrics_slot_check CHECK (slot >= 1 AND slot <= 8)
);

create table declared_account_daily (
  ad_account_id uuid not null,
  day date not null,
  d1 double precision not null,
  d2 double precision not null,
  d3 double precision not null,
  d4 double precision not null,
  d5 double precision not null,
  d6 double precision not null,
  d7 double precision not null,
  d8 double precision not null,
  constraint declared_account_daily_pkey PRIMARY KEY (ad_account_id, day),
  constraint declared_account_daily_ad_account_id_fkey FOREIGN KEY (ad_account_id) REFERENCES ad_accounts(id) ON DELETE CASCADE
);

create table declared_account_monthly (
  ad_account_id uuid not null,
  month date not null,
  d1 double precision not null,
  d2 double precision not null,
  d3 double precision not null,
  d4 double precision not null,
  d5 double precision not null,
  d6 double precision not null,
  d7 double precision not null,
  d8 double precision not null,
  constraint declared_account_monthly_pkey PRIMARY KEY (ad_account_id, month),
  constraint declared_account_monthly_ad_account_id_fkey FOREIGN KEY (ad_account_id) REFERENCES ad_accounts(id) ON DELETE CASCADE
);

create table declared_campaign_daily (
  ad_account_id uuid not null,
  day date not null,
  campaign_id uuid not null,
  d1 double precision not null,
  d2 double precision not null,
  d3 double precision not null,
  d4 double precision not null,
  d5 double precision not null,
  d6 double precision not null,
  d7 double precision not null,
  d8 double precision not null,
  constraint declared_campaign_daily_pkey PRIMARY KEY (ad_account_id, day, campaign_id),
  constraint declared_campaign_daily_ad_account_id_fkey FOREIGN KEY (ad_account_id) REFERENCES ad_accounts(id) ON DELETE CASCADE
);

create table declared_campaign_monthly (
  ad_account_id uuid not null,
  month date not null,
  campaign_id uuid not null,
  d1 double precision not null,
  d2 double precision not null,
  d3 double precision not null,
  d4 double precision not null,
  d5 double precision not null,
  d6 double precision not null,
  d7 double precision not null,
  d8 double precision not null,
  constraint declared_campaign_monthly_pkey PRIMARY KEY (ad_account_id, month, campaign_id),
  constraint declared_campaign_monthly_ad_account_id_fkey FOREIGN KEY (ad_account_id) REFERENCES ad_accounts(id) ON DELETE CASCADE
);

create table declared_campaign_spans (
  ad_account_id uuid not null,
  level smallint not null,
  start date not null,
  campaign_id uuid not null,
  d1 double precision not null,
  d2 double precision not null,
  d3 double precision not null,
  d4 double precision not null,
  d5 double precision not null,
  d6 double precision not null,
  d7 double precision not null,
  d8 double precision not null,
  constraint declared_campaign_spans_pkey PRIMARY KEY (ad_account_id, level, start, campaign_id),
  constraint declared_campaign_spans_ad_account_id_fkey FOREIGN KEY (ad_account_id) REFERENCES ad_accounts(id) ON DELETE CASCADE
);

create table declared_creative_monthly (
  ad_account_id uuid not null,
  month date not null,
  creative_id uuid not null,
  campaign_id uuid not null,
  d1 double precision not null,
  d2 double precision not null,
  d3 double precision not null,
  d4 double precision not null,
  d5 double precision not null,
  d6 double precision not null,
  d7 double precision not null,
  d8 double precision not null,
  constraint declared_creative_monthly_pkey PRIMARY KEY (ad_account_id, month, creative_id),
  constraint declared_creative_monthly_ad_account_id_fkey FOREIGN KEY (ad_account_id) REFERENCES ad_accounts(id) ON DELETE CASCADE
);

create table declared_creative_spans (
  ad_account_id uuid not null,
  level smallint not null,
  start date not null,
  creative_id uuid not null,
  campaign_id uuid not null,
  d1 double precision not null,
  d2 double precision not null,
  d3 double precision not null,
  d4 double precision not null,
  d5 double precision not null,
  d6 double precision not null,
  d7 double precision not null,
  d8 double precision not null,
  constraint declared_creative_spans_pkey PRIMARY KEY (ad_account_id, level, start, creative_id),
  constraint declared_creative_spans_ad_account_id_fkey FOREIGN KEY (ad_account_id) REFERENCES ad_accounts(id) ON DELETE CASCADE
);

create table deleted_clients (
  id text not null,
  deleted_at timestamp with time zone default now() not null,
  constraint deleted_clients_pkey PRIMARY KEY (id)
);

create table fact_account_writes (
  ad_account_id uuid not null,
  writes bigint not null,
  constraint fact_account_writes_pkey PRIMARY KEY (ad_account_id),
  constraint fact_account_writes_ad_account_id_fkey FOREIGN KEY (ad_account_id) REFERENCES ad_accounts(id) ON DELETE CASCADE
);

create table fact_writes (
  ad_account_id uuid not null,
  day date not null,
  written_at timestamp with time zone not null,
  constraint fact_writes_pkey PRIMARY KEY (ad_account_id, day),
  constraint fact_writes_ad_account_id_fkey FOREIGN KEY (ad_account_id) REFERENCES ad_accounts(id) ON DELETE CASCADE
);

create table facts (
  organization_id uuid not null,
  ad_account_id uuid not null,
  campaign_id uuid not null,
  creative_id uuid not null,
  day date not null,
  impressions bigint default 0 not null,
  clicks bigint default 0 not null,
  spend double precision default 0 not null,
  conversions double precision default 0 not null,
  conversion_value double precision default 0 not null,
  video_views bigint default 0 not null,
  video_completions bigint default 0 not null,
  declared double precision[],
  constraint facts_pkey PRIMARY KEY (ad_account_id, day, creative_id)
);
alter table facts alter column impressions set statistics 0;
alter table facts alter column clicks set statistics 0;
alter table facts alter column spend set statistics 0;
alter table facts alter column conversions set statistics 0;
alter table facts alter column conversion_value set statistics 0;
alter table facts alter column video_views set statistics 0;
alter table facts alter column video_completions set statistics 0;
alter table facts alter column declared set statistics 0;

create table facts_account_daily (
  organization_id uuid not null,
  ad_account_id uuid not null,
  day date not null,
  impressions bigint not null,
  clicks bigint not null,
  spend double precision not null,
  conversions double precision not null,
  conversion_value double precision not null,
  video_views bigint not null,
  video_completions bigint not null,
  constraint facts_account_daily_pkey PRIMARY KEY (ad_account_id, day)
);
alter table facts_account_daily alter column impressions set statistics 0;
alter table facts_account_daily alter column clicks set statistics 0;
alter table facts_account_daily alter column spend set statistics 0;
alter table facts_account_daily alter column conversions set statistics 0;
alter table facts_account_daily alter column conversion_value set statistics 0;
alter table facts_account_daily alter column video_views set statistics 0;
alter table facts_account_daily alter column video_completions set statistics 0;

create table facts_account_daily_converted (
  currency text not null,
  organization_id uuid not null,
  ad_account_id uuid not null,
  day date not null,
  impressions bigint not null,
  clicks bigint not null,
  spend double precision,
  conversions double precision not null,
  conversion_value double precision,
  video_views bigint not null,
  video_completions bigint not null,
  constraint facts_account_daily_converted_pkey PRIMARY KEY (currency, ad_account_id, day)
);
alter table facts_account_daily_converted alter column impressions set statistics 0;
alter table facts_account_daily_converted alter column clicks set statistics 0;
alter table facts_account_daily_converted alter column spend set statistics 0;
alter table facts_account_daily_converted alter column conversions set statistics 0;
alter table facts_account_daily_converted alter column conversion_value set statistics 0;
alter table facts_account_daily_converted alter column video_views set statistics 0;
alter table facts_account_daily_converted alter column video_completions set statistics 0;

create table facts_campaign_daily (
  organization_id uuid not null,
  ad_account_id uuid not null,
  campaign_id uuid not null,
  day date not null,
  impressions bigint not null,
  clicks bigint not null,
  spend double precision not null,
  conversions double precision not null,
  conversion_value double precision not null,
  video_views bigint not null,
  video_completions bigint not null,
  constraint facts_campaign_daily_pkey PRIMARY KEY (ad_account_id, day, campaign_id)
);
alter table facts_campaign_daily alter column impressions set statistics 0;
alter table facts_campaign_daily alter column clicks set statistics 0;
alter table facts_campaign_daily alter column spend set statistics 0;
alter table facts_campaign_daily alter column conversions set statistics 0;
alter table facts_campaign_daily alter column conversion_value set statistics 0;
alter table facts_campaign_daily alter column video_views set statistics 0;
alter table facts_campaign_daily alter column video_completions set statistics 0;

create table facts_campaign_daily_converted (
  currency text not null,
  organization_id uuid not null,
  ad_account_id uuid not null,
  campaign_id uuid not null,
  day date not null,
  impressions bigint not null,
  clicks bigint not null,
  spend double precision,
  conversions double precision not null,
  conversion_value double precision,
  video_views bigint not null,
  video_completions bigint not null,
  constraint facts_campaign_daily_converted_pkey PRIMARY KEY (currency, ad_account_id, day, campaign_id)
);
alter table facts_campaign_daily_converted alter column impressions set statistics 0;
alter table facts_campaign_daily_converted alter column clicks set statistics 0;
alter table facts_campaign_daily_converted alter column spend set statistics 0;
alter table facts_campaign_daily_converted alter column conversions set statistics 0;
alter table facts_campaign_daily_converted alter column conversion_value set statistics 0;
alter table facts_campaign_daily_converted alter column video_views set statistics 0;
alter table facts_campaign_daily_converted alter column video_completions set statistics 0;

create table facts_campaign_monthly (
  organization_id uuid not null,
  ad_account_id uuid not null,
  campaign_id uuid not null,
  month date not null,
  impressions bigint not null,
  clicks bigint not null,
  spend double precision not null,
  conversions double precision not null,
  conversion_value double precision not null,
  video_views bigint not null,
  video_completions bigint not null,
  constraint facts_campaign_monthly_pkey PRIMARY KEY (ad_account_id, month, campaign_id)
);
alter table facts_campaign_monthly alter column impressions set statistics 0;
alter table facts_campaign_monthly alter column clicks set statistics 0;
alter table facts_campaign_monthly alter column spend set statistics 0;
alter table facts_campaign_monthly alter column conversions set statistics 0;
alter table facts_campaign_monthly alter column conversion_value set statistics 0;
alter table facts_campaign_monthly alter column video_views set statistics 0;
alter table facts_campaign_monthly alter column video_completions set statistics 0;

create table facts_campaign_monthly_converted (
  currency text not null,
  organization_id uuid not null,
  ad_account_id uuid not null,
  campaign_id uuid not null,
  month date not null,
  impressions bigint not null,
  clicks bigint not null,
  spend double precision,
  conversions double precision not null,
  conversion_value double precision,
  video_views bigint not null,
  video_completions bigint not null,
  constraint facts_campaign_monthly_converted_pkey PRIMARY KEY (currency, ad_account_id, month, campaign_id)
);
alter table facts_campaign_monthly_converted alter column impressions set statistics 0;
alter table facts_campaign_monthly_converted alter column clicks set statistics 0;
alter table facts_campaign_monthly_converted alter column spend set statistics 0;
alter table facts_campaign_monthly_converted alter column conversions set statistics 0;
alter table facts_campaign_monthly_converted alter column conversion_value set statistics 0;
alter table facts_campaign_monthly_converted alter column video_views set statistics 0;
alter table facts_campaign_monthly_converted alter column video_completions set statistics 0;

create table facts_campaign_spans (
  ad_account_id uuid not null,
  level smallint not null,
  start date not null,
  currency text not null,
  campaign_id uuid not null,
  organization_id uuid not null,
  impressions bigint not null,
  clicks bigint not null,
  spend double precision,
  conversions double precision not null,
  conversion_value double precision,
  video_views bigint not null,
  video_completions bigint not null,
  constraint facts_campaign_spans_pkey PRIMARY KEY (ad_account_id, level, start, currency, campaign_id)
);
alter table facts_campaign_spans alter column impressions set statistics 0;
alter table facts_campaign_spans alter column clicks set statistics 0;
alter table facts_campaign_spans alter column spend set statistics 0;
alter table facts_campaign_spans alter column conversions set statistics 0;
alter table facts_campaign_spans alter column conversion_value set statistics 0;
alter table facts_campaign_spans alter column video_views set statistics 0;
alter table facts_campaign_spans alter column video_completions set statistics 0;

create table facts_monthly (
  organization_id uuid not null,
  ad_account_id uuid not null,
  campaign_id uuid not null,
  creative_id uuid not null,
  month date not null,
  impressions bigint not null,
  clicks bigint not null,
  spend double precision not null,
  conversions double precision not null,
  conversion_value double precision not null,
  video_views bigint not null,
  video_completions bigint not null,
  constraint facts_monthly_pkey PRIMARY KEY (ad_account_id, month, creative_id)
);
alter table facts_monthly alter column impressions set statistics 0;
alter table facts_monthly alter column clicks set statistics 0;
alter table facts_monthly alter column spend set statistics 0;
alter table facts_monthly alter column conversions set statistics 0;
alter table facts_monthly alter column conversion_value set statistics 0;
alter table facts_monthly alter column video_views set statistics 0;
alter table facts_monthly alter column video_completions set statistics 0;

create table facts_monthly_converted (
  currency text not null,
  organization_id uuid not null,
  ad_account_id uuid not null,
  campaign_id uuid not null,
  creative_id uuid not null,
  month date not null,
  impressions bigint not null,
  clicks bigint not null,
  spend double precision,
  conversions double precision not null,
  conversion_value double precision,
  video_views bigint not null,
  video_completions bigint not null,
  constraint facts_monthly_converted_pkey PRIMARY KEY (currency, ad_account_id, month, creative_id)
);
alter table facts_monthly_converted alter column impressions set statistics 0;
alter table facts_monthly_converted alter column clicks set statistics 0;
alter table facts_monthly_converted alter column spend set statistics 0;
alter table facts_monthly_converted alter column conversions set statistics 0;
alter table facts_monthly_converted alter column conversion_value set statistics 0;
alter table facts_monthly_converted alter column video_views set statistics 0;
alter table facts_monthly_converted alter column video_completions set statistics 0;

create table facts_spans (
  ad_account_id uuid not null,
  level smallint not null,
  start date not null,
  currency text not null,
  creative_ids uuid[] not null,
  campaign_ids uuid[] not null,
  impressions bigint[] not null,
  clicks bigint[] not null,
  spend double precision[] not null,
  conversions double precision[] not null,
  conversion_value double precision[] not null,
  video_views bigint[] not null,
  video_completions bigint[] not null,
  constraint facts_spans_pkey PRIMARY KEY (ad_account_id, level, start, currency)
);
alter table facts_spans alter column creative_ids set statistics 0;
alter table facts_spans alter column campaign_ids set statistics 0;
alter table facts_spans alter column impressions set statistics 0;
alter table facts_spans alter column clicks set statistics 0;
alter table facts_spans alter column spend set statistics 0;
alter table facts_spans alter column conversions set statistics 0;
alter table facts_spans alter column conversion_value set statistics 0;
alter table facts_spans alter column video_views set statistics 0;
alter table facts_spans alter column video_completions set statistics 0;

create table fx_rates (
  currency text not null,
  day date not null,
  usd_per_unit double precision not null,
  source text default 'import'::text not null,
  constraint fx_rates_pkey PRIMARY KEY (currency, day),
  constraint fx_rates_currency_check CHECK (currency ~ '^[A-Z]{3}$'::text),
  constraint fx_rates_source_check CHECK (source = ANY (ARRAY['import'::text, 'demo'::text])),
  constraint fx_rates_usd_per_unit_check CHECK (usd_per_unit > 0::double precision)
);

create table organizations (
  id uuid default gen_random_uuid() not null,
  name text not null,
  currency text default 'USD'::text not null,
  time_zone text default 'UTC'::text not null,
  created_at timestamp with time zone default now() not null,
  constraint organizations_pkey PRIMARY KEY (id),
  constraint organizations_currency_check CHECK (currency ~ '^[A-Z]{3}$'::text),
  constraint organizations_name_check CHECK (length(name) >= 1 AND length(name) <= 200)
);

create table plans (
  code text not null,
  name text not null,
  public_api boolean not null,
  conversion_metrics boolean not null,
  hourly_budget integer not null,
  constraint plans_pkey PRIMARY KEY (code),
  constraint plans_hourly_budget_check CHECK (hourly_budget >= 0)
);

create table quota_client_usage (
  organization_id uuid not null,
  client_id text not null,
  window_start timestamp with time zone not null,
  used integer default 0 not null,
  constraint quota_client_usage_pkey PRIMARY KEY (client_id, window_start),
  constraint quota_client_usage_client_id_fkey FOREIGN KEY (client_id) REFERENCES api_clients(id),
  constraint quota_client_usage_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id)
);

create table quota_windows (
  organization_id uuid not null,
  window_start timestamp with time zone not null,
  used integer default 0 not null,
  constraint quota_windows_pkey PRIMARY KEY (organization_id, window_start),
  constraint quota_windows_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id)
);

create table report_ad_accounts (
  organization_id uuid not null,
  report_id uuid not null,
  ad_account_id uuid not null,
  constraint report_ad_accounts_pkey PRIMARY KEY (report_id, ad_account_id),
  constraint report_ad_accounts_ad_account_id_fkey FOREIGN KEY (ad_account_id) REFERENCES ad_accounts(id),
  constraint report_ad_accounts_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id),
  constraint report_ad_accounts_report_id_fkey FOREIGN KEY (report_id) REFERENCES reports(id)
);

create table report_segments (
  organization_id uuid not null,
  report_id uuid not null,
  segment_id uuid not null,
  constraint report_segments_pkey PRIMARY KEY (report_id, segment_id),
  constraint report_segments_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id),
  constraint report_segments_report_id_fkey FOREIGN KEY (report_id) REFERENCES reports(id),
  constraint report_segments_segment_id_fkey FOREIGN KEY (segment_id) REFERENCES segments(id)
);

create table report_versions (
  organization_id uuid not null,
  version bigint not null,
  constraint report_versions_pkey PRIMARY KEY (organization_id),
  constraint report_versions_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE
);

create table reports (
  id uuid default gen_random_uuid() not null,
  organization_id uuid not null,
  name text not null,
  description text default ''::text not null,
  kind text not null,
  currency text not null,
  metrics text[] default '{impressions,clicks,spend,ctr,cpc}'::text[] not null,
  groupings text[] default '{total,campaign,month,ad-account,video,creative}'::text[] not null,
  created_at timestamp with time zone default now() not null,
  updated_at timestamp with time zone default now() not null,
  constraint reports_pkey PRIMARY KEY (id),
  constraint reports_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id),
  constraint reports_currency_check CHECK (currency ~ '^[A-Z]{3}$'::text),
  constraint reports_kind_check CHECK (kind = ANY (ARRAY['standard'::text, 'segment'::text, 'months'::text]))
);

create table schema_migrations (
  name text not null,
  applied_at timestamp with time zone default now() not null,
  constraint schema_migrations_pkey PRIMARY KEY (name)
);

create table segment_campaigns (
  organization_id uuid not null,
  segment_id uuid not null,
  campaign_id uuid not null,
  constraint segment_campaigns_pkey PRIMARY KEY (segment_id, campaign_id),
  constraint segment_campaigns_campaign_id_fkey FOREIGN KEY (campaign_id) REFERENCES campaigns(id),
  constraint segment_campaigns_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id),
  constraint segment_campaigns_segment_id_fkey FOREIGN KEY (segment_id) REFERENCES segments(id)
);

create table segments (
  id uuid default gen_random_uuid() not null,
  organization_id uuid not null,
  name text not null,
  description text default ''::text not null,
  constraint segments_pkey PRIMARY KEY (id),
  constraint segments_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id)
);

create table signing_keys (
  kid text not null,
  secret bytea not null,
  created_at timestamp with time zone default now() not null,
  retired_at timestamp with time zone,
  constraint signing_keys_pkey PRIMARY KEY (kid)
);

create table subscriptions (
  organization_id uuid not null,
  plan_code text not null,
  locked boolean default false not null,
  budget_override integer,
  updated_at timestamp with time zone default now() not null,
  constraint subscriptions_pkey PRIMARY KEY (organization_id),
  constraint subscriptions_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id),
  constraint subscriptions_plan_code_fkey FOREIGN KEY (plan_code) REFERENCES plans(code),
  constraint subscriptions_budget_override_check CHECK (budget_override >= 0)
);

create table system_metrics (
  name text not null,
  display_name text not null,
  kind text not null,
  unit text not null,
  conversion_derived boolean not null,
  description text not null,
  position integer not null,
  constraint system_metrics_pkey PRIMARY KEY (name),
  constraint system_metrics_kind_check CHECK (kind = ANY (ARRAY['money'::text, 'count'::text, 'percent'::text, 'ratio'::text, 'decimal'::text]))
);

create table token_issuers (
  issuer text not null,
  registered_at timestamp with time zone default now() not null,
  constraint token_issuers_pkey PRIMARY KEY (issuer)
);

CREATE INDEX ad_accounts_listing ON public.ad_accounts USING btree (organization_id, name, id);
CREATE INDEX api_clients_organization ON public.api_clients USING btree (organization_id);
CREATE INDEX api_clients_revoked ON public.api_clients USING btree (revoked_at) WHERE (revoked_at IS NOT NULL);
CREATE INDEX campaigns_ad_account ON public.campaigns USING btree (ad_account_id);
CREATE INDEX campaigns_listing ON public.campaigns USING btree (organization_id, name, id);
CREATE INDEX client_secrets_client ON public.client_secrets USING btree (client_id);
CREATE INDEX creatives_answer ON public.creatives USING btree (campaign_id) INCLUDE (id, name, external_id, format);
CREATE INDEX reports_listing ON public.reports USING btree (organization_id, name, id);
CREATE INDEX segment_campaigns_campaign ON public.segment_campaigns USING btree (campaign_id);
CREATE INDEX segments_listing ON public.segments USING btree (organization_id, name, id);

CREATE OR REPLACE FUNCTION public.after_full_month(p_from date, p_to date)
 RETURNS date
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select greatest(date_trunc('month', (p_to + 1)::timestamp)::date, first_full_month(p_from))
$function$;

CREATE OR REPLACE FUNCTION public.analyze_fact_table(p_table text)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
begin
  if p_table not in (select facts_tables_to_analyze(true)) then
    raise exception 'analyze_fact_table: % is not one of the facts'' tables', p_table;
  end if;
  execute format('analyze %I', p_table);
end
$function$;

CREATE OR REPLACE FUNCTION public.bump_report_versions()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  if tg_op = 'UPDATE' then
    -- A row moved to another organization changes both.
    insert into report_versions as v (organization_id, version)
    select organization_id, 1 from changed_rows union select organization_id, 1 from old_rows
    on conflict (organization_id) do update set version = v.version + 1;
  else
    insert into report_versions as v (organization_id, version)
    select distinct organization_id, 1 from changed_rows
    on conflict (organization_id) do update set version = v.version + 1;
  end if;
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION public.changed_periods(p_accounts uuid[], p_from date, p_to date, p_interval text, p_since timestamp with time zone)
 RETURNS TABLE(period date)
 LANGUAGE sql
 STABLE
AS $function$
  select distinct period_start(p_interval, w.day)
  from fact_writes w
  where w.ad_account_id = any(p_accounts) and w.day >= p_from and w.day <= p_to and w.written_at > p_since
$function$;

CREATE OR REPLACE FUNCTION public.charge_quota_leasing(p_org uuid, p_window timestamp with time zone, p_clients text[], p_costs integer[], p_leases integer[])
 RETURNS TABLE(outcome text, budget integer, used integer, leased integer)
 LANGUAGE plpgsql
AS $function$
declare
  n integer := coalesce(array_length(p_clients, 1), 0);
  v_budget integer;
  v_public_api boolean;
  v_locked boolean;
  v_used integer;
  v_inserted integer;
  c_ids text[];
  c_live boolean[];
  c_used integer[];
  c_added integer[];
  me integer;
  room boolean;
  lease integer;
begin
  if n <> coalesce(array_length(p_costs, 1), 0) or n <> coalesce(array_length(p_leases, 1), 0) then
    raise exception 'charge_quota_leasing: % clients, % costs, % leases', n, coalesce(array_length(p_costs, 1), 0),
      coalesce(array_length(p_leases, 1), 0);
  end if;
  select coalesce(s.budget_override, p.hourly_budget), p.public_api, s.locked into v_budget, v_public_api, v_locked
  from subscriptions s join plans p on p.code = s.plan_code
  where s.organization_id = p_org;
  if v_budget is null or not v_public_api or v_locked then
    return query select case when v_budget is null then 'no-subscription' when not v_public_api then 'no-api' else 'locked' end,
                        coalesce(v_budget, 0), 0, 0
                 from generate_series(1, n);
    return;
  end if;

  insert into quota_windows as w (organization_id, window_start, used) values (p_org, p_window, 0)
  on conflict do nothing;
  get diagnostics v_inserted = row_count;
  if v_inserted > 0 then
    delete from quota_windows w where w.organization_id = p_org and w.window_start < p_window - interval '1 day';
    delete from quota_client_usage u where u.organization_id = p_org and u.window_start < p_window - interval '1 day';
  end if;
  select w.used into v_used from quota_windows w
  where w.organization_id = p_org and w.window_start = p_window
  for update;

  select array_agg(c.id order by c.id), array_agg(c.revoked_at is null order by c.id),
         array_agg(coalesce(u.used, 0) order by c.id), array_agg(0 order by c.id)
  into c_ids, c_live, c_used, c_added
  from api_clients c
  left join quota_client_usage u on u.client_id = c.id and u.window_start = p_window
  where c.organization_id = p_org;

  for i in 1 .. n loop
    leased := 0;
    me := array_position(c_ids, p_clients[i]);
    if me is null or not c_live[me] then
      outcome := 'revoked';
    elsif v_used + p_costs[i] > v_budget then
      outcome := 'spent';
    else
      room := false;
      if (c_used[me] + p_costs[i]) * 2 > v_budget then
        for j in 1 .. coalesce(array_length(c_ids, 1), 0) loop
          if j <> me and c_live[j] and c_used[j] * 2 < v_budget then
            room := true;
            exit;
          end if;
        end loop;
      end if;
      if room then
        outcome := 'fair-share';
      else
        outcome := 'ok';
        v_used := v_used + p_costs[i];
        c_used[me] := c_used[me] + p_costs[i];
        c_added[me] := c_added[me] + p_costs[i];
        lease := least(p_leases[i], (v_budget - v_used) / 64, greatest(v_budget / 2 - c_used[me], 0) / 64);
        if lease >= 2 then
          leased := lease;
          v_used := v_used + lease;
          c_used[me] := c_used[me] + lease;
          c_added[me] := c_added[me] + lease;
        end if;
      end if;
    end if;
    budget := v_budget;
    used := v_used;
    return next;
  end loop;

  update quota_windows w set used = v_used where w.organization_id = p_org and w.window_start = p_window;
  insert into quota_client_usage as u (organization_id, client_id, window_start, used)
  select p_org, c_ids[j], p_window, c_added[j] from generate_subscripts(c_ids, 1) j where c_added[j] > 0
  on conflict (client_id, window_start) do update set used = u.used + excluded.used;
end
$function$;

CREATE OR REPLACE FUNCTION public.converted_rollups_after_rates()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
declare
  v_currencies text[];
  v_days date[];
  v_accounts uuid[];
  v_months date[];
begin
  if tg_op = 'INSERT' then
    select array_agg(currency), array_agg(day) into v_currencies, v_days from new_rows;
  elsif tg_op = 'DELETE' then
    select array_agg(currency), array_agg(day) into v_currencies, v_days from old_rows;
  else
    select array_agg(currency), array_agg(day) into v_currencies, v_days
    from (select currency, day from new_rows union all select currency, day from old_rows) t;
  end if;
  if v_currencies is null then
    return null;
  end if;
  perform lock_converted_rollups(true);
  with changed as (
    select t.currency, min(t.day) as first, max(t.day) as last
    from unnest(v_currencies, v_days) as t(currency, day)
    group by t.currency
  ), spans as (
    select c.currency, date_trunc('month', c.first)::date as first_month,
           (select min(r.day) from fx_rates r where r.currency = c.currency and r.day > c.last) as until
    from changed c
  )
  select array_agg(ad_account_id), array_agg(month) into v_accounts, v_months
  from (
    select distinct m.ad_account_id, m.month
    from spans s
    join ad_accounts a on a.currency = s.currency
      or exists (select 1 from converted_currencies r where r.organization_id = a.organization_id and r.currency = s.currency)
    join facts_campaign_monthly m on m.ad_account_id = a.id and m.month >= s.first_month and (s.until is null or m.month < s.until)
  ) t;
  if v_accounts is not null then
    perform rebuild_converted_spans(v_accounts, v_months, null);
    perform rebuild_converted_rollups(v_accounts, v_months, null);
  end if;
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION public.converted_rollups_for_report()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
declare
  v_accounts uuid[];
  v_months date[];
begin
  if exists (select 1 from converted_currencies where organization_id = new.organization_id and currency = new.currency) then
    return null;
  end if;
  perform lock_converted_rollups(true);
  insert into converted_currencies (organization_id, currency) values (new.organization_id, new.currency) on conflict do nothing;
  if not found then
    return null;
  end if;
  select array_agg(t.ad_account_id), array_agg(t.month) into v_accounts, v_months
  from (
    select distinct m.ad_account_id, m.month
    from facts_campaign_monthly m
    join ad_accounts a on a.id = m.ad_account_id
    where a.organization_id = new.organization_id and a.currency <> new.currency
  ) t;
  perform rebuild_converted_spans(v_accounts, v_months, new.currency);
  perform rebuild_converted_rollups(v_accounts, v_months, new.currency);
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION public.declared_after_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
declare
  v_accounts uuid[];
  v_days date[];
begin
  if not exists (select from custom_metrics where slot is not null) then
    return null;
  end if;
  if tg_op = 'INSERT' then
    select array_agg(a), array_agg(d) into v_accounts, v_days
    from (select distinct ad_account_id as a, day as d from new_rows where declared is not null) t;
  elsif tg_op = 'DELETE' then
    select array_agg(a), array_agg(d) into v_accounts, v_days
    from (select distinct ad_account_id as a, day as d from old_rows where declared is not null) t;
  else
    select array_agg(a), array_agg(d) into v_accounts, v_days
    from (select ad_account_id as a, day as d from new_rows where declared is not null
          union
          select ad_account_id, day from old_rows where declared is not null) t;
  end if;
  if v_accounts is not null then
    perform rebuild_declared(v_accounts, v_days);
    perform rebuild_declared_spans(v_accounts, v_days);
  end if;
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION public.defer_rollups()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
begin
  create temporary table if not exists deferred_rollup_days (ad_account_id uuid, day date, primary key (ad_account_id, day))
    on commit drop;
  perform set_config('readout.defer_rollups', 'on', true);
end
$function$;

CREATE OR REPLACE FUNCTION public.delete_organization(p_org uuid)
 RETURNS TABLE(clients integer, fact_rows bigint)
 LANGUAGE plpgsql
AS $function$
declare
  v_clients integer;
  v_facts bigint;
begin
  insert into deleted_clients (id) select id from api_clients where organization_id = p_org on conflict do nothing;
  select count(*) into v_clients from api_clients where organization_id = p_org;
  delete from facts where organization_id = p_org;
  get diagnostics v_facts = row_count;
  delete from facts_monthly where organization_id = p_org;
  delete from facts_campaign_daily where organization_id = p_org;
  delete from facts_campaign_monthly where organization_id = p_org;
  delete from facts_monthly_converted where organization_id = p_org;
  delete from facts_campaign_monthly_converted where organization_id = p_org;
  delete from converted_currencies where organization_id = p_org;
  delete from report_segments where organization_id = p_org;
  delete from report_ad_accounts where organization_id = p_org;
  delete from segment_campaigns where organization_id = p_org;
  delete from reports where organization_id = p_org;
  delete from segments where organization_id = p_org;
  delete from custom_metrics where organization_id = p_org;
  delete from creatives where organization_id = p_org;
  delete from campaigns where organization_id = p_org;
  delete from ad_accounts where organization_id = p_org;
  delete from quota_client_usage where organization_id = p_org;
  delete from quota_windows where organization_id = p_org;
  delete from client_secrets where organization_id = p_org;
  delete from api_clients where organization_id = p_org;
  delete from subscriptions where organization_id = p_org;
  delete from organizations where id = p_org;
  return query select v_clients, v_facts;
end
$function$;

CREATE OR REPLACE FUNCTION public.export_xml_text(x text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select replace(replace(replace(
           case when x ~ '[\x01-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]'
                then regexp_replace(x, '[\x01-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]', '', 'g') else x end,
         '&', '&amp;'), '<', '&lt;'), '>', '&gt;')
$function$;

CREATE OR REPLACE FUNCTION public.fact_writes_after_rates()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
declare
  v_currencies text[];
  v_days date[];
  v_accounts uuid[];
  v_stamped date[];
begin
  if tg_op = 'INSERT' then
    select array_agg(currency), array_agg(day) into v_currencies, v_days from new_rows;
  elsif tg_op = 'DELETE' then
    select array_agg(currency), array_agg(day) into v_currencies, v_days from old_rows;
  else
    select array_agg(currency), array_agg(day) into v_currencies, v_days
    from (
      select currency, day from (select currency, day, usd_per_unit from new_rows except select currency, day, usd_per_unit from old_rows) n
      union
      select currency, day from (select currency, day, usd_per_unit from old_rows except select currency, day, usd_per_unit from new_rows) o
    ) t;
  end if;
  if v_currencies is null then
    return null;
  end if;
  with changed as (
    select t.currency, min(t.day) as first, max(t.day) as last
    from unnest(v_currencies, v_days) as t(currency, day)
    group by t.currency
  ), spans as (
    select c.currency, c.first, (select min(r.day) from fx_rates r where r.currency = c.currency and r.day > c.last) as until
    from changed c
  )
  select array_agg(w.ad_account_id), array_agg(w.day) into v_accounts, v_stamped
  from spans s
  join ad_accounts a on a.currency = s.currency
    or exists (select 1 from converted_currencies r where r.organization_id = a.organization_id and r.currency = s.currency)
  join fact_writes w on w.ad_account_id = a.id and w.day >= s.first and (s.until is null or w.day < s.until);
  perform stamp_fact_writes(v_accounts, v_stamped);
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION public.facts_account_daily_after_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
declare
  v_accounts uuid[];
  v_days date[];
begin
  if tg_op = 'DELETE' then
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days from (select distinct ad_account_id, day from old_rows) t;
  elsif tg_op = 'INSERT' then
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days from (select distinct ad_account_id, day from new_rows) t;
  else
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days
    from (select ad_account_id, day from new_rows union select ad_account_id, day from old_rows) t;
  end if;
  if v_accounts is not null then
    perform rebuild_facts_account_daily(v_accounts, v_days);
  end if;
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION public.facts_account_daily_converted_after_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
declare
  v_currencies text[];
  v_accounts uuid[];
  v_days date[];
begin
  if tg_op = 'DELETE' then
    select array_agg(currency), array_agg(ad_account_id), array_agg(day) into v_currencies, v_accounts, v_days
    from (select distinct currency, ad_account_id, day from old_rows) t;
  elsif tg_op = 'INSERT' then
    select array_agg(currency), array_agg(ad_account_id), array_agg(day) into v_currencies, v_accounts, v_days
    from (select distinct currency, ad_account_id, day from new_rows) t;
  else
    select array_agg(currency), array_agg(ad_account_id), array_agg(day) into v_currencies, v_accounts, v_days
    from (select currency, ad_account_id, day from new_rows union select currency, ad_account_id, day from old_rows) t;
  end if;
  if v_accounts is not null then
    perform rebuild_facts_account_daily_converted(v_currencies, v_accounts, v_days);
  end if;
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION public.facts_after_write()
 RETURNS trigger
 LANGUAGE plpgsql
 SET enable_mergejoin TO 'off'
 SET work_mem TO '64MB'
 SET enable_sort TO 'off'
AS $function$
declare
  v_accounts uuid[];
  v_days date[];
begin
  if tg_op = 'INSERT' then
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days
    from (select distinct ad_account_id, day from new_rows) t;
  elsif tg_op = 'DELETE' then
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days
    from (select distinct ad_account_id, day from old_rows) t;
  elsif current_setting('readout.updates_change', true) = 'on' then
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days
    from (select distinct ad_account_id, day from new_rows) t;
  else
    select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days
    from (
      select distinct ad_account_id, day
      from new_rows n full join old_rows o using (ad_account_id, day, creative_id)
      where n.creative_id is null or o.creative_id is null
        or (n.organization_id, n.campaign_id, n.impressions, n.clicks, n.spend, n.conversions, n.conversion_value,
            n.video_views, n.video_completions)
          is distinct from (o.organization_id, o.campaign_id, o.impressions, o.clicks, o.spend, o.conversions,
              o.conversion_value, o.video_views, o.video_completions)
    ) t;
  end if;
  if v_accounts is null then
    return null;
  end if;
  perform stamp_fact_writes(v_accounts, v_days);
  if current_setting('readout.defer_rollups', true) = 'on' then
    insert into deferred_rollup_days select * from unnest(v_accounts, v_days) on conflict do nothing;
  else
    perform rebuild_rollups(v_accounts, v_days);
  end if;
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION public.facts_tables_to_analyze(p_all boolean)
 RETURNS SETOF text
 LANGUAGE sql
 STABLE
AS $function$
  select c.relname::text
  from pg_class c
  where c.oid = any(array['facts', 'facts_monthly', 'facts_campaign_daily', 'facts_campaign_monthly',
                          'facts_account_daily', 'facts_monthly_converted', 'facts_campaign_daily_converted',
                          'facts_campaign_monthly_converted', 'facts_account_daily_converted', 'facts_spans',
                          'facts_campaign_spans', 'fact_writes', 'fact_account_writes', 'declared_campaign_daily',
                          'declared_campaign_monthly', 'declared_account_daily', 'declared_account_monthly',
                          'declared_creative_monthly', 'declared_campaign_spans', 'declared_creative_spans']::regclass[])
    and (p_all or c.reltuples < 0 or c.relpages < 128
         or pg_relation_size(c.oid) > 1.1 * c.relpages * current_setting('block_size')::bigint)
  order by pg_relation_size(c.oid) desc, c.relname
$function$;

CREATE OR REPLACE FUNCTION public.facts_write_stamp()
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
AS $function$
declare
  v_stamp text := current_setting('readout.facts_written_at', true);
  v_locked timestamptz;
begin
  if v_stamp is not null and v_stamp <> '' then
    return v_stamp::timestamptz;
  end if;
  v_locked := clock_timestamp();
  perform pg_advisory_xact_lock_shared((1831::bigint << 50) | floor(extract(epoch from v_locked - timestamptz '2020-01-01 00:00:00+00') * 1000000)::bigint);
  v_stamp := clock_timestamp()::text;
  perform set_config('readout.facts_written_at', v_stamp, true);
  return v_stamp::timestamptz;
end
$function$;

CREATE OR REPLACE FUNCTION public.first_full_month(p_from date)
 RETURNS date
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select case when extract(day from p_from) = 1 then p_from
              else (date_trunc('month', p_from::timestamp) + interval '1 month')::date end
$function$;

CREATE OR REPLACE FUNCTION public.formula_add(a double precision, b double precision)
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select case when abs(a) <= 1e+300::float8 and abs(b) <= 1e+300::float8 then a + b
         else null end
$function$;

CREATE OR REPLACE FUNCTION public.formula_div(a double precision, b double precision)
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select case when b = 0 then null
              when a = 0 then a / b
              when abs(b) < 1 and abs(a) > 1e+300::float8 * abs(b) then null
              when abs(b) > 1 and abs(a) < 1e-300::float8 * abs(b) then 0::float8
         else a / b end
$function$;

CREATE OR REPLACE FUNCTION public.formula_mul(a double precision, b double precision)
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select case when a = 0 or b = 0 then a * b
              when abs(a) > 1 and abs(b) > 1e+300::float8 / abs(a) then null
              when abs(a) < 1 and abs(b) < 1e-300::float8 / abs(a) then 0::float8
         else a * b end
$function$;

CREATE OR REPLACE FUNCTION public.formula_sub(a double precision, b double precision)
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select case when abs(a) <= 1e+300::float8 and abs(b) <= 1e+300::float8 then a - b
         else null end
$function$;

CREATE OR REPLACE FUNCTION public.fx_factor(p_source text, p_target text, p_day date)
 RETURNS double precision
 LANGUAGE sql
 STABLE
AS $function$
  select case when p_source = p_target then 1.0::double precision else usd_rate_on(p_source, p_day) / usd_rate_on(p_target, p_day) end
$function$;

CREATE OR REPLACE FUNCTION public.js_number(v double precision)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select case when v = 0 then '0'
              when abs(v) >= 1e-4 and abs(v) < 1e15 then v::text
              else js_number_exponent(v::text) end
$function$;

CREATE OR REPLACE FUNCTION public.js_number_exponent(t text)
 RETURNS text
 LANGUAGE plpgsql
 IMMUTABLE PARALLEL SAFE
AS $function$
declare
  m text[] := regexp_match(t, '^(-?)([0-9])(?:\.([0-9]+))?e([-+][0-9]+)$');
  digits text;
  k int;
  n int;
  out text;
begin
  if m is null then
    return t;
  end if;
  digits := m[2] || coalesce(m[3], '');
  k := length(digits);
  n := m[4]::int + 1; -- the value is 0.digits × 10^n
  if k <= n and n <= 21 then
    out := digits || repeat('0', n - k);
  elsif 0 < n and n <= 21 then
    out := left(digits, n) || '.' || substr(digits, n + 1);
  elsif -6 < n and n <= 0 then
    out := '0.' || repeat('0', -n) || digits;
  else
    out := left(digits, 1) || case when k > 1 then '.' || substr(digits, 2) else '' end
        || 'e' || case when n - 1 >= 0 then '+' else '-' end || abs(n - 1)::text;
  end if;
  return m[1] || out;
end
$function$;

CREATE OR REPLACE FUNCTION public.js_round(x double precision)
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select case when ceil(x) - 0.5::float8 > x then ceil(x) - 1::float8 else ceil(x) end
$function$;

CREATE OR REPLACE FUNCTION public.lock_converted_rollups(p_exclusive boolean)
 RETURNS void
 LANGUAGE sql
AS $function$
  select lock_writers()
$function$;

CREATE OR REPLACE FUNCTION public.lock_writers()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
begin
  perform pg_advisory_xact_lock(727019);
  if current_setting('synchronous_commit') = 'off' then
    perform set_config('synchronous_commit', 'local', true);
  end if;
end
$function$;

CREATE OR REPLACE FUNCTION public.lock_writers_before_statement()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  perform lock_writers();
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION public.month_pieces(p_account uuid, p_month date, p_source text, p_target text)
 RETURNS TABLE(organization_id uuid, campaign_id uuid, creative_id uuid, impressions bigint, clicks bigint, spend double precision, conversions double precision, conversion_value double precision, video_views bigint, video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  select a.organization_id, s.campaign_id, s.creative_id, s.impressions, s.clicks, s.spend, s.conversions,
         s.conversion_value, s.video_views, s.video_completions
  from ad_accounts a
  cross join span_pieces(p_month, (p_month + interval '1 month')::date - 1) p
  cross join lateral (
    select c.campaign_id, c.creative_id, c.impressions, c.clicks, c.spend, c.conversions, c.conversion_value,
           c.video_views, c.video_completions
    from span_creatives(array[p_account], p.level, p.start, p.start, p_target) c
    where p.level > 0
    union all
    select f.campaign_id, f.creative_id, f.impressions, f.clicks, f.spend * x.factor, f.conversions,
           f.conversion_value * x.factor, f.video_views, f.video_completions
    -- The day's rate once (offset 0 keeps it a row of its own): pulled up, it is looked up a fact and money column.
    from (select case when p_source = p_target then 1::float8 else fx_factor(p_source, p_target, p.start) end
          offset 0) x(factor)
    cross join lateral (select * from facts f where f.ad_account_id = p_account and f.day = p.start offset 0) f
    where p.level = 0
  ) s
  where a.id = p_account
$function$;

CREATE OR REPLACE FUNCTION public.period_start(p_interval text, p_day date)
 RETURNS date
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select date_trunc(p_interval, p_day::timestamp)::date
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_converted_rollups(p_accounts uuid[], p_months date[], p_target text)
 RETURNS void
 LANGUAGE sql
 SET jit TO 'off'
 SET enable_sort TO 'off'
AS $function$
  delete from facts_monthly_converted m
  using unnest(p_accounts, p_months) as t(ad_account_id, month)
  where m.ad_account_id = t.ad_account_id and m.month = t.month and (p_target is null or m.currency = p_target);
  delete from facts_campaign_monthly_converted m
  using unnest(p_accounts, p_months) as t(ad_account_id, month)
  where m.ad_account_id = t.ad_account_id and m.month = t.month and (p_target is null or m.currency = p_target);
  delete from facts_campaign_daily_converted d
  using unnest(p_accounts, p_months) as t(ad_account_id, month)
  where d.ad_account_id = t.ad_account_id and d.day >= t.month and d.day < (t.month + interval '1 month')::date
    and (p_target is null or d.currency = p_target);
  with pairs as (
    select t.ad_account_id, t.month, a.currency as source, r.currency as target
    from unnest(p_accounts, p_months) as t(ad_account_id, month)
    join ad_accounts a on a.id = t.ad_account_id
    join converted_currencies r on r.organization_id = a.organization_id and r.currency <> a.currency
    where p_target is null or r.currency = p_target
  ), factors as materialized (
    select p.source, p.target, p.month, d::date as day, fx_factor(p.source, p.target, d::date) as factor
    from (select distinct source, target, month from pairs) p
    cross join lateral generate_series(p.month, p.month + interval '1 month' - interval '1 day', interval '1 day') d
  ), creatives as (
    insert into facts_monthly_converted (currency, organization_id, ad_account_id, campaign_id, creative_id, month,
      impressions, clicks, spend, conversions, conversion_value, video_views, video_completions)
    select p.target, s.organization_id, p.ad_account_id, s.campaign_id, s.creative_id, p.month,
           sum(s.impressions), sum(s.clicks), case when count(*) = count(s.spend) then sum(s.spend) end,
           sum(s.conversions), case when count(*) = count(s.conversion_value) then sum(s.conversion_value) end,
           sum(s.video_views), sum(s.video_completions)
    from pairs p
    cross join lateral month_pieces(p.ad_account_id, p.month, p.source, p.target) s
    group by p.target, s.organization_id, p.ad_account_id, s.campaign_id, s.creative_id, p.month
    returning *
  ), days as (
    insert into facts_campaign_daily_converted (currency, organization_id, ad_account_id, campaign_id, day,
      impressions, clicks, spend, conversions, conversion_value, video_views, video_completions)
    select p.target, d.organization_id, d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks,
           d.spend * x.factor, d.conversions, d.conversion_value * x.factor, d.video_views, d.video_completions
    from pairs p
    join factors x on x.source = p.source and x.target = p.target and x.month = p.month
    cross join lateral (
      select * from facts_campaign_daily d where d.ad_account_id = p.ad_account_id and d.day = x.day offset 0
    ) d
  )
  insert into facts_campaign_monthly_converted (currency, organization_id, ad_account_id, campaign_id, month,
    impressions, clicks, spend, conversions, conversion_value, video_views, video_completions)
  select c.currency, c.organization_id, c.ad_account_id, c.campaign_id, c.month,
         sum(c.impressions), sum(c.clicks), case when count(*) = count(c.spend) then sum(c.spend) end,
         sum(c.conversions), case when count(*) = count(c.conversion_value) then sum(c.conversion_value) end,
         sum(c.video_views), sum(c.video_completions)
  from creatives c
  group by c.currency, c.organization_id, c.ad_account_id, c.campaign_id, c.month;
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_converted_spans(p_accounts uuid[], p_months date[], p_target text)
 RETURNS void
 LANGUAGE sql
AS $function$
  select rebuild_spans(array_agg(t.ad_account_id), array_agg(d::date), p_target, false)
  from unnest(p_accounts, p_months) as t(ad_account_id, month)
  cross join lateral generate_series(t.month, t.month + interval '1 month' - interval '1 day', interval '1 day') d
  having count(*) > 0;
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_declared(p_accounts uuid[], p_days date[])
 RETURNS void
 LANGUAGE sql
AS $function$
  delete from declared_campaign_daily d
  using (select distinct a, day from unnest(p_accounts, p_days) t(a, day)) t
  where d.ad_account_id = t.a and d.day = t.day;
  insert into declared_campaign_daily (ad_account_id, day, campaign_id, d1, d2, d3, d4, d5, d6, d7, d8)
  select f.ad_account_id, f.day, f.campaign_id, sum(coalesce(f.declared[1], 0)), sum(coalesce(f.declared[2], 0)), sum(coalesce(f.declared[3], 0)), sum(coalesce(f.declared[4], 0)), sum(coalesce(f.declared[5], 0)), sum(coalesce(f.declared[6], 0)), sum(coalesce(f.declared[7], 0)), sum(coalesce(f.declared[8], 0))
  from facts f
  join (select distinct a, day from unnest(p_accounts, p_days) t(a, day)) t on f.ad_account_id = t.a and f.day = t.day
  where f.declared is not null
  group by f.ad_account_id, f.day, f.campaign_id;
  delete from declared_account_daily d
  using (select distinct a, day from unnest(p_accounts, p_days) t(a, day)) t
  where d.ad_account_id = t.a and d.day = t.day;
  insert into declared_account_daily (ad_account_id, day, d1, d2, d3, d4, d5, d6, d7, d8)
  select d.ad_account_id, d.day, sum(d.d1), sum(d.d2), sum(d.d3), sum(d.d4), sum(d.d5), sum(d.d6), sum(d.d7), sum(d.d8)
  from declared_campaign_daily d
  join (select distinct a, day from unnest(p_accounts, p_days) t(a, day)) t on d.ad_account_id = t.a and d.day = t.day
  group by d.ad_account_id, d.day;
  delete from declared_campaign_monthly m
  using (select distinct a, date_trunc('month', day::timestamp)::date as month from unnest(p_accounts, p_days) t(a, day)) t
  where m.ad_account_id = t.a and m.month = t.month;
  insert into declared_campaign_monthly (ad_account_id, month, campaign_id, d1, d2, d3, d4, d5, d6, d7, d8)
  select d.ad_account_id, t.month, d.campaign_id, sum(d.d1), sum(d.d2), sum(d.d3), sum(d.d4), sum(d.d5), sum(d.d6), sum(d.d7), sum(d.d8)
  from declared_campaign_daily d
  join (select distinct a, date_trunc('month', day::timestamp)::date as month from unnest(p_accounts, p_days) t(a, day)) t
    on d.ad_account_id = t.a and d.day >= t.month and d.day < (t.month + interval '1 month')::date
  group by d.ad_account_id, t.month, d.campaign_id;
  delete from declared_account_monthly m
  using (select distinct a, date_trunc('month', day::timestamp)::date as month from unnest(p_accounts, p_days) t(a, day)) t
  where m.ad_account_id = t.a and m.month = t.month;
  insert into declared_account_monthly (ad_account_id, month, d1, d2, d3, d4, d5, d6, d7, d8)
  select d.ad_account_id, t.month, sum(d.d1), sum(d.d2), sum(d.d3), sum(d.d4), sum(d.d5), sum(d.d6), sum(d.d7), sum(d.d8)
  from declared_account_daily d
  join (select distinct a, date_trunc('month', day::timestamp)::date as month from unnest(p_accounts, p_days) t(a, day)) t
    on d.ad_account_id = t.a and d.day >= t.month and d.day < (t.month + interval '1 month')::date
  group by d.ad_account_id, t.month;
  delete from declared_creative_monthly m
  using (select distinct a, date_trunc('month', day::timestamp)::date as month from unnest(p_accounts, p_days) t(a, day)) t
  where m.ad_account_id = t.a and m.month = t.month;
  insert into declared_creative_monthly (ad_account_id, month, creative_id, campaign_id, d1, d2, d3, d4, d5, d6, d7, d8)
  select f.ad_account_id, t.month, f.creative_id, min(f.campaign_id::text)::uuid, sum(coalesce(f.declared[1], 0)), sum(coalesce(f.declared[2], 0)), sum(coalesce(f.declared[3], 0)), sum(coalesce(f.declared[4], 0)), sum(coalesce(f.declared[5], 0)), sum(coalesce(f.declared[6], 0)), sum(coalesce(f.declared[7], 0)), sum(coalesce(f.declared[8], 0))
  from facts f
  join (select distinct a, date_trunc('month', day::timestamp)::date as month from unnest(p_accounts, p_days) t(a, day)) t
    on f.ad_account_id = t.a and f.day >= t.month and f.day < (t.month + interval '1 month')::date
  where f.declared is not null
  group by f.ad_account_id, t.month, f.creative_id;
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_declared_campaign_spans(p_accounts uuid[], p_days date[])
 RETURNS void
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_custom_plan'
AS $function$
declare
  v_level integer;
  v_below integer := 0;
begin
  foreach v_level in array array[2, 3, 4, 5, 6, 7, 8, 10] loop
    delete from declared_campaign_spans s
    using (select distinct t.a, span_start(v_level, t.day) as start from unnest(p_accounts, p_days) t(a, day)) t
    where s.ad_account_id = t.a and s.level = v_level and s.start = t.start;
    with spans as (
      select distinct t.a, span_start(v_level, t.day) as start from unnest(p_accounts, p_days) t(a, day)
    )
    insert into declared_campaign_spans (ad_account_id, level, start, campaign_id, d1, d2, d3, d4, d5, d6, d7, d8)
    select t.a, v_level, t.start, c.campaign_id, sum(c.d1), sum(c.d2), sum(c.d3), sum(c.d4), sum(c.d5), sum(c.d6), sum(c.d7), sum(c.d8)
    from spans t
    cross join lateral (
      select d.campaign_id, d1, d2, d3, d4, d5, d6, d7, d8 from declared_campaign_daily d
      where v_below = 0 and d.ad_account_id = t.a and d.day >= t.start and d.day < t.start + (1 << v_level)
      union all
      select s.campaign_id, d1, d2, d3, d4, d5, d6, d7, d8 from declared_campaign_spans s
      where v_below > 0 and s.ad_account_id = t.a and s.level = v_below
        and s.start >= t.start and s.start < t.start + (1 << v_level)
    ) c
    group by t.a, t.start, c.campaign_id;
    v_below := v_level;
  end loop;
end
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_declared_creative_spans(p_accounts uuid[], p_days date[])
 RETURNS void
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_custom_plan'
AS $function$
declare
  v_level integer;
  v_below integer := 0;
begin
  foreach v_level in array array[2, 3, 4, 5, 6, 7, 8, 10] loop
    delete from declared_creative_spans s
    using (select distinct t.a, span_start(v_level, t.day) as start from unnest(p_accounts, p_days) t(a, day)) t
    where s.ad_account_id = t.a and s.level = v_level and s.start = t.start;
    with spans as (
      select distinct t.a, span_start(v_level, t.day) as start from unnest(p_accounts, p_days) t(a, day)
    )
    insert into declared_creative_spans (ad_account_id, level, start, creative_id, campaign_id,
                                         d1, d2, d3, d4, d5, d6, d7, d8)
    select t.a, v_level, t.start, c.creative_id, c.campaign_id,
           sum(c.d1), sum(c.d2), sum(c.d3), sum(c.d4), sum(c.d5), sum(c.d6), sum(c.d7), sum(c.d8)
    from spans t
    cross join lateral (
      select f.creative_id, f.campaign_id,
             coalesce(f.declared[1], 0) as d1, coalesce(f.declared[2], 0) as d2, coalesce(f.declared[3], 0) as d3,
             coalesce(f.declared[4], 0) as d4, coalesce(f.declared[5], 0) as d5, coalesce(f.declared[6], 0) as d6,
             coalesce(f.declared[7], 0) as d7, coalesce(f.declared[8], 0) as d8
      from facts f
      where v_below = 0 and f.ad_account_id = t.a and f.day >= t.start and f.day < t.start + (1 << v_level)
        and f.declared is not null
      union all
      select s.creative_id, s.campaign_id, s.d1, s.d2, s.d3, s.d4, s.d5, s.d6, s.d7, s.d8
      from declared_creative_spans s
      where v_below > 0 and s.ad_account_id = t.a and s.level = v_below
        and s.start >= t.start and s.start < t.start + (1 << v_level)
    ) c
    group by t.a, t.start, c.creative_id, c.campaign_id;
    v_below := v_level;
  end loop;
end
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_declared_spans(p_accounts uuid[], p_days date[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
begin
  perform rebuild_declared_campaign_spans(p_accounts, p_days);
  perform rebuild_declared_creative_spans(p_accounts, p_days);
end
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_deferred_rollups()
 RETURNS void
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_custom_plan'
AS $function$
declare
  v_accounts uuid[];
  v_days date[];
begin
  perform set_config('readout.defer_rollups', 'off', true);
  select array_agg(ad_account_id), array_agg(day) into v_accounts, v_days from deferred_rollup_days;
  delete from deferred_rollup_days;
  if v_accounts is not null then
    perform rebuild_rollups(v_accounts, v_days);
  end if;
end
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_facts_account_daily(p_accounts uuid[], p_days date[])
 RETURNS void
 LANGUAGE sql
AS $function$
  delete from facts_account_daily d
  using unnest(p_accounts, p_days) as t(ad_account_id, day)
  where d.ad_account_id = t.ad_account_id and d.day = t.day;
  insert into facts_account_daily (organization_id, ad_account_id, day, impressions, clicks, spend, conversions,
      conversion_value, video_views, video_completions)
  select c.organization_id, c.ad_account_id, c.day, sum(c.impressions), sum(c.clicks), sum(c.spend), sum(c.conversions),
         sum(c.conversion_value), sum(c.video_views), sum(c.video_completions)
  from (select distinct * from unnest(p_accounts, p_days) as t(ad_account_id, day)) t
  join facts_campaign_daily c on c.ad_account_id = t.ad_account_id and c.day = t.day
  group by c.organization_id, c.ad_account_id, c.day;
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_facts_account_daily_converted(p_currencies text[], p_accounts uuid[], p_days date[])
 RETURNS void
 LANGUAGE sql
AS $function$
  delete from facts_account_daily_converted d
  using unnest(p_currencies, p_accounts, p_days) as t(currency, ad_account_id, day)
  where d.currency = t.currency and d.ad_account_id = t.ad_account_id and d.day = t.day;
  insert into facts_account_daily_converted (currency, organization_id, ad_account_id, day, impressions, clicks, spend,
      conversions, conversion_value, video_views, video_completions)
  select c.currency, c.organization_id, c.ad_account_id, c.day, sum(c.impressions), sum(c.clicks),
         case when count(*) = count(c.spend) then sum(c.spend) end, sum(c.conversions),
         case when count(*) = count(c.conversion_value) then sum(c.conversion_value) end, sum(c.video_views),
         sum(c.video_completions)
  from (select distinct * from unnest(p_currencies, p_accounts, p_days) as t(currency, ad_account_id, day)) t
  join facts_campaign_daily_converted c on c.currency = t.currency and c.ad_account_id = t.ad_account_id and c.day = t.day
  group by c.currency, c.organization_id, c.ad_account_id, c.day;
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_facts_campaign_daily(p_accounts uuid[], p_days date[])
 RETURNS void
 LANGUAGE sql
 SET enable_sort TO 'off'
AS $function$
  delete from facts_campaign_daily d
  using unnest(p_accounts, p_days) as t(ad_account_id, day)
  where d.ad_account_id = t.ad_account_id and d.day = t.day;
  insert into facts_campaign_daily (organization_id, ad_account_id, campaign_id, day, impressions, clicks, spend,
      conversions, conversion_value, video_views, video_completions)
  select f.organization_id, f.ad_account_id, f.campaign_id, f.day,
         sum(f.impressions), sum(f.clicks), sum(f.spend), sum(f.conversions), sum(f.conversion_value),
         sum(f.video_views), sum(f.video_completions)
  from unnest(p_accounts, p_days) as t(ad_account_id, day)
  join facts f on f.ad_account_id = t.ad_account_id and f.day = t.day
  group by f.organization_id, f.ad_account_id, f.campaign_id, f.day;
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_facts_campaign_monthly(p_accounts uuid[], p_months date[])
 RETURNS void
 LANGUAGE sql
AS $function$
  delete from facts_campaign_monthly m
  using unnest(p_accounts, p_months) as t(ad_account_id, month)
  where m.ad_account_id = t.ad_account_id and m.month = t.month;
  insert into facts_campaign_monthly (organization_id, ad_account_id, campaign_id, month, impressions, clicks, spend,
      conversions, conversion_value, video_views, video_completions)
  select m.organization_id, m.ad_account_id, m.campaign_id, m.month,
         sum(m.impressions), sum(m.clicks), sum(m.spend), sum(m.conversions), sum(m.conversion_value),
         sum(m.video_views), sum(m.video_completions)
  from unnest(p_accounts, p_months) as t(ad_account_id, month)
  join facts_monthly m on m.ad_account_id = t.ad_account_id and m.month = t.month
  group by m.organization_id, m.ad_account_id, m.campaign_id, m.month;
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_facts_monthly(p_accounts uuid[], p_months date[])
 RETURNS void
 LANGUAGE sql
 SET enable_sort TO 'off'
AS $function$
  delete from facts_monthly m
  using unnest(p_accounts, p_months) as t(ad_account_id, month)
  where m.ad_account_id = t.ad_account_id and m.month = t.month;
  insert into facts_monthly (organization_id, ad_account_id, campaign_id, creative_id, month, impressions, clicks,
      spend, conversions, conversion_value, video_views, video_completions)
  select s.organization_id, t.ad_account_id, s.campaign_id, s.creative_id, t.month,
         sum(s.impressions), sum(s.clicks), sum(s.spend), sum(s.conversions), sum(s.conversion_value),
         sum(s.video_views), sum(s.video_completions)
  from unnest(p_accounts, p_months) as t(ad_account_id, month)
  join ad_accounts a on a.id = t.ad_account_id
  cross join lateral month_pieces(t.ad_account_id, t.month, a.currency, a.currency) s
  group by s.organization_id, t.ad_account_id, s.campaign_id, s.creative_id, t.month;
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_rollups(p_accounts uuid[], p_days date[])
 RETURNS void
 LANGUAGE plpgsql
 SET jit TO 'off'
 SET plan_cache_mode TO 'force_custom_plan'
 SET work_mem TO '64MB'
AS $function$
declare
  v_month_accounts uuid[];
  v_months date[];
begin
  select array_agg(ad_account_id), array_agg(month) into v_month_accounts, v_months
  from (select distinct ad_account_id, date_trunc('month', day)::date as month
        from unnest(p_accounts, p_days) as t(ad_account_id, day)) m;
  perform lock_converted_rollups(false);
  perform rebuild_spans(p_accounts, p_days, null, true);
  perform rebuild_facts_monthly(v_month_accounts, v_months);
  perform rebuild_facts_campaign_monthly(v_month_accounts, v_months);
  perform rebuild_facts_campaign_daily(p_accounts, p_days);
  perform rebuild_converted_rollups(v_month_accounts, v_months, null);
end
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_spans(p_accounts uuid[], p_days date[], p_target text, p_native boolean)
 RETURNS void
 LANGUAGE plpgsql
 SET jit TO 'off'
 SET plan_cache_mode TO 'force_custom_plan'
AS $function$
declare
  v_level integer;
  v_below integer := 0;
  v_accounts uuid[];
  v_starts date[];
  v_sources text[];
  v_targets text[];
begin
  foreach v_level in array array[2, 3, 4, 5, 6, 7, 8, 10] loop
    -- The spans of this length over the days, in each currency kept: (account, start, its currency, the target).
    select array_agg(b.ad_account_id), array_agg(b.start), array_agg(a.currency), array_agg(c.currency)
    into v_accounts, v_starts, v_sources, v_targets
    from (select distinct t.ad_account_id, span_start(v_level, t.day) as start
          from unnest(p_accounts, p_days) as t(ad_account_id, day)) b
    join ad_accounts a on a.id = b.ad_account_id
    cross join lateral (
      select a.currency where p_native
      union
      select r.currency from converted_currencies r where r.organization_id = a.organization_id and r.currency <> a.currency
    ) c(currency)
    where p_target is null or c.currency = p_target;
    exit when v_accounts is null;
    delete from facts_spans s using unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
    where s.ad_account_id = t.ad_account_id and s.level = v_level and s.start = t.start and s.currency = t.target;
    delete from facts_campaign_spans s using unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
    where s.ad_account_id = t.ad_account_id and s.level = v_level and s.start = t.start and s.currency = t.target;
    if v_level = 2 then
      -- An account's span once, with its currencies (targets) and each one's four days' rates (factors[k][day]).
      with t as materialized (
        select t.ad_account_id, t.start, array_agg(t.target) as targets,
               array_agg(array(
                 select case when t.source = t.target then 1::float8 else fx_factor(t.source, t.target, t.start + d) end
                 from generate_series(0, 3) d order by d)) as factors
        from unnest(v_accounts, v_starts, v_sources, v_targets) as t(ad_account_id, start, source, target)
        group by t.ad_account_id, t.start
      )
      insert into facts_spans (ad_account_id, level, start, currency, creative_ids, campaign_ids, impressions, clicks,
          spend, conversions, conversion_value, video_views, video_completions)
      select t.ad_account_id, 2, t.start, s.target, array_agg(s.creative_id), array_agg(s.campaign_id),
             array_agg(s.impressions), array_agg(s.clicks), array_agg(s.spend), array_agg(s.conversions),
             array_agg(s.conversion_value), array_agg(s.video_views), array_agg(s.video_completions)
      from t
      cross join lateral (
        select t.targets[k] as target, f.creative_id, f.campaign_id,
               sum(f.impressions) as impressions, sum(f.clicks) as clicks,
               case when count(*) = count(t.factors[k][f.day - t.start + 1])
                 then sum(f.spend * t.factors[k][f.day - t.start + 1]) end as spend,
               sum(f.conversions) as conversions,
               case when count(*) = count(t.factors[k][f.day - t.start + 1])
                 then sum(f.conversion_value * t.factors[k][f.day - t.start + 1]) end as conversion_value,
               sum(f.video_views) as video_views, sum(f.video_completions) as video_completions
        from facts f
        cross join generate_subscripts(t.targets, 1) k
        where f.ad_account_id = t.ad_account_id and f.day >= t.start and f.day < t.start + 4
        group by k, f.creative_id, f.campaign_id
      ) s
      group by t.ad_account_id, t.start, s.target;
    else
      -- A span with one span below it holding facts holds what that one holds: its arrays are copied, not summed
      -- again (a day of new creatives; the later half of a span, not yet reached).
      insert into facts_spans (ad_account_id, level, start, currency, creative_ids, campaign_ids, impressions, clicks,
          spend, conversions, conversion_value, video_views, video_completions)
      select t.ad_account_id, v_level, t.start, t.target, b.creative_ids, b.campaign_ids, b.impressions, b.clicks,
             b.spend, b.conversions, b.conversion_value, b.video_views, b.video_completions
      from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
      join facts_spans b on b.ad_account_id = t.ad_account_id and b.level = v_below and b.currency = t.target
        and b.start between t.start and t.start + (1 << v_level) - 1
      where span_children(t.ad_account_id, v_below, t.start, t.start + (1 << v_level) - 1, t.target) = 1;
      insert into facts_spans (ad_account_id, level, start, currency, creative_ids, campaign_ids, impressions, clicks,
          spend, conversions, conversion_value, video_views, video_completions)
      select t.ad_account_id, v_level, t.start, t.target, s.*
      from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
      cross join lateral (
        select array_agg(c.creative_id), array_agg(c.campaign_id), array_agg(c.impressions), array_agg(c.clicks),
               array_agg(c.spend), array_agg(c.conversions), array_agg(c.conversion_value), array_agg(c.video_views),
               array_agg(c.video_completions)
        from (
          select c.creative_id, c.campaign_id, sum(c.impressions) as impressions, sum(c.clicks) as clicks,
                 case when count(*) = count(c.spend) then sum(c.spend) end as spend, sum(c.conversions) as conversions,
                 case when count(*) = count(c.conversion_value) then sum(c.conversion_value) end as conversion_value,
                 sum(c.video_views) as video_views, sum(c.video_completions) as video_completions
          from span_creatives(array[t.ad_account_id], v_below, t.start, t.start + (1 << v_level) - 1, t.target) c
          group by c.creative_id, c.campaign_id
        ) c
        having count(*) > 0
      ) s
      where span_children(t.ad_account_id, v_below, t.start, t.start + (1 << v_level) - 1, t.target) > 1;
    end if;
    if v_level = 2 then
      insert into facts_campaign_spans (ad_account_id, level, start, currency, campaign_id, organization_id,
        impressions, clicks, spend, conversions, conversion_value, video_views, video_completions)
      select t.ad_account_id, v_level, t.start, t.target, s.campaign_id, a.organization_id,
             s.impressions, s.clicks, s.spend, s.conversions, s.conversion_value, s.video_views, s.video_completions
      from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
      join ad_accounts a on a.id = t.ad_account_id
      cross join lateral (
        select c.campaign_id, sum(c.impressions) as impressions, sum(c.clicks) as clicks,
               case when count(*) = count(c.spend) then sum(c.spend) end as spend, sum(c.conversions) as conversions,
               case when count(*) = count(c.conversion_value) then sum(c.conversion_value) end as conversion_value,
               sum(c.video_views) as video_views, sum(c.video_completions) as video_completions
        from span_creatives(array[t.ad_account_id], 2, t.start, t.start, t.target) c
        group by c.campaign_id
      ) s;
    else
      insert into facts_campaign_spans (ad_account_id, level, start, currency, campaign_id, organization_id,
        impressions, clicks, spend, conversions, conversion_value, video_views, video_completions)
      select t.ad_account_id, v_level, t.start, t.target, s.campaign_id, s.organization_id,
             s.impressions, s.clicks, s.spend, s.conversions, s.conversion_value, s.video_views, s.video_completions
      from unnest(v_accounts, v_starts, v_targets) as t(ad_account_id, start, target)
      cross join lateral (
        select s.campaign_id, s.organization_id, sum(s.impressions) as impressions, sum(s.clicks) as clicks,
               case when count(*) = count(s.spend) then sum(s.spend) end as spend, sum(s.conversions) as conversions,
               case when count(*) = count(s.conversion_value) then sum(s.conversion_value) end as conversion_value,
               sum(s.video_views) as video_views, sum(s.video_completions) as video_completions
        from facts_campaign_spans s
        where s.ad_account_id = t.ad_account_id and s.level = v_below and s.currency = t.target
          and s.start >= t.start and s.start < t.start + (1 << v_level)
        group by s.campaign_id, s.organization_id
      ) s;
    end if;
    v_below := v_level;
  end loop;
end
$function$;

CREATE OR REPLACE FUNCTION public.refund_quota(p_org uuid, p_client text, p_window timestamp with time zone, p_cost integer)
 RETURNS TABLE(budget integer, used integer)
 LANGUAGE plpgsql
AS $function$
declare
  v_used integer;
  v_budget integer;
begin
  update quota_windows w set used = greatest(w.used - p_cost, 0)
  where w.organization_id = p_org and w.window_start = p_window
  returning w.used into v_used;
  update quota_client_usage u set used = greatest(u.used - p_cost, 0)
  where u.client_id = p_client and u.window_start = p_window;
  select coalesce(s.budget_override, p.hourly_budget) into v_budget
  from subscriptions s join plans p on p.code = s.plan_code
  where s.organization_id = p_org;
  return query select v_budget, v_used;
end
$function$;

CREATE OR REPLACE FUNCTION public.refuse_orphaned_facts()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
declare
  v_accounts uuid[];
  v_ids uuid[];
  v_column text;
begin
  if tg_table_name = 'ad_accounts' then
    select array_agg(id), array_agg(id) into v_accounts, v_ids from old_rows;
    v_column := 'ad_account_id';
  elsif tg_table_name = 'campaigns' then
    select array_agg(distinct ad_account_id), array_agg(id) into v_accounts, v_ids from old_rows;
    v_column := 'campaign_id';
  else
    -- A creative's account: any account of its organization (its campaign may be gone first).
    select array_agg(a.id) into v_accounts
    from ad_accounts a where a.organization_id in (select distinct organization_id from old_rows);
    select array_agg(id) into v_ids from old_rows;
    v_column := 'creative_id';
  end if;
  if v_ids is null or v_accounts is null then
    return null;
  end if;
  if exists (
    select 1 from facts f
    where f.ad_account_id = any(v_accounts)
      and case v_column when 'ad_account_id' then true
                        when 'campaign_id' then f.campaign_id = any(v_ids)
                        else f.creative_id = any(v_ids) end
  ) then
    raise exception 'facts still name the % being deleted', replace(tg_table_name, '_', ' ')
      using errcode = 'foreign_key_violation', hint = 'Delete its facts first, as org delete does.';
  end if;
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION public.report_account_days(p_accounts uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, day date, impressions bigint, clicks bigint, spend double precision, conversions double precision, conversion_value double precision, video_views bigint, video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  with accounts as (
    select a.id, a.currency, a.currency = p_currency as same,
           exists (select 1 from converted_currencies r where r.organization_id = a.organization_id and r.currency = p_currency) as rolled
    from ad_accounts a where a.id = any(p_accounts)
  ), same as (
    select array_agg(id) as ids from accounts where same
  ), rolled as (
    select array_agg(id) as ids from accounts where not same and rolled
  ), daily as (
    select array_agg(id) as ids from accounts where not same and not rolled
  ), factors as materialized (
    select c.currency, d::date as day, fx_factor(c.currency, p_currency, d::date) as factor
    from (select distinct currency from accounts where not same and not rolled) c
    cross join generate_series(p_from, p_to, interval '1 day') d
  )
  select d.ad_account_id, d.day, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value, d.video_views,
         d.video_completions
  from facts_account_daily d, same s
  where d.ad_account_id = any(s.ids) and d.day >= p_from and d.day <= p_to
  union all
  select d.ad_account_id, d.day, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value, d.video_views,
         d.video_completions
  from facts_account_daily_converted d, rolled o
  where d.currency = p_currency and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
  union all
  select d.ad_account_id, d.day, d.impressions, d.clicks, d.spend * x.factor, d.conversions,
         d.conversion_value * x.factor, d.video_views, d.video_completions
  from facts_account_daily d
  join accounts a on a.id = d.ad_account_id
  join factors x on x.currency = a.currency and x.day = d.day
  , daily o
  -- Uncorrelated, so PostgreSQL skips the branch when every account has its rollup (a one-time filter).
  where exists (select 1 from accounts where not same and not rolled) and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
$function$;

CREATE OR REPLACE FUNCTION public.report_account_facts(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, day date, impressions bigint, clicks bigint, spend double precision, conversions double precision, conversion_value double precision, video_views bigint, video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  select f.ad_account_id, f.day, f.impressions, f.clicks, f.spend, f.conversions, f.conversion_value, f.video_views,
         f.video_completions
  from report_account_days(p_accounts, p_from, p_to, p_currency) f
  where p_campaigns is null
  union all
  select f.ad_account_id, f.day, f.impressions, f.clicks, f.spend, f.conversions, f.conversion_value, f.video_views,
         f.video_completions
  from report_campaign_facts(p_accounts, p_campaigns, p_from, p_to, p_currency) f
  where p_campaigns is not null
$function$;

CREATE OR REPLACE FUNCTION public.report_account_periods(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text, p_interval text, p_since timestamp with time zone)
 RETURNS TABLE(ad_account_id uuid, period date, impressions bigint, clicks bigint, spend double precision, conversions double precision, conversion_value double precision, video_views bigint, video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  select f.ad_account_id, period_start(p_interval, f.day), f.impressions, f.clicks, f.spend, f.conversions,
         f.conversion_value, f.video_views, f.video_completions
  from report_account_days(p_accounts, p_from, p_to, p_currency) f
  where p_interval <> 'month' and p_campaigns is null
    and (p_since is null or period_start(p_interval, f.day) in (select c.period from changed_periods(p_accounts, p_from, p_to, p_interval, p_since) c))
  union all
  select f.ad_account_id, f.period, f.impressions, f.clicks, f.spend, f.conversions, f.conversion_value, f.video_views,
         f.video_completions
  from report_campaign_periods(p_accounts, p_campaigns, p_from, p_to, p_currency, p_interval, p_since) f
  where p_interval = 'month' or p_campaigns is not null
$function$;

CREATE OR REPLACE FUNCTION public.report_campaign_days(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, day date, impressions bigint, clicks bigint, spend double precision, conversions double precision, conversion_value double precision, video_views bigint, video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  with accounts as (
    select a.id, a.currency, a.currency = p_currency as same,
           exists (select 1 from converted_currencies r where r.organization_id = a.organization_id and r.currency = p_currency) as rolled
    from ad_accounts a where a.id = any(p_accounts)
  ), same as (
    select array_agg(id) as ids from accounts where same
  ), rolled as (
    select array_agg(id) as ids from accounts where not same and rolled
  ), daily as (
    select array_agg(id) as ids from accounts where not same and not rolled
  ), factors as materialized (
    select c.currency, d::date as day, fx_factor(c.currency, p_currency, d::date) as factor
    from (select distinct currency from accounts where not same and not rolled) c
    cross join generate_series(p_from, p_to, interval '1 day') d
  )
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value,
         d.video_views, d.video_completions
  from facts_campaign_daily d, same s
  where d.ad_account_id = any(s.ids) and d.day >= p_from and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value,
         d.video_views, d.video_completions
  from facts_campaign_daily_converted d, rolled o
  where d.currency = p_currency and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend * x.factor, d.conversions,
         d.conversion_value * x.factor, d.video_views, d.video_completions
  from facts_campaign_daily d
  join accounts a on a.id = d.ad_account_id
  join factors x on x.currency = a.currency and x.day = d.day
  , daily o
  -- Uncorrelated, so PostgreSQL skips the branch when every account has its rollup (a one-time filter).
  where exists (select 1 from accounts where not same and not rolled) and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
$function$;

CREATE OR REPLACE FUNCTION public.report_campaign_facts(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, day date, impressions bigint, clicks bigint, spend double precision, conversions double precision, conversion_value double precision, video_views bigint, video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  with accounts as (
    select a.id, a.currency, a.currency = p_currency as same,
           exists (select 1 from converted_currencies r where r.organization_id = a.organization_id and r.currency = p_currency) as rolled
    from ad_accounts a where a.id = any(p_accounts)
  ), same as (
    select array_agg(id) as ids from accounts where same
  ), rolled as (
    select array_agg(id) as ids from accounts where not same and rolled
  ), daily as (
    select array_agg(id) as ids from accounts where not same and not rolled
  ), factors as materialized (
    select c.currency, d::date as day, fx_factor(c.currency, p_currency, d::date) as factor
    from (select distinct currency from accounts where not same and not rolled) c
    cross join generate_series(p_from, p_to, interval '1 day') d
  )
  select m.ad_account_id, m.campaign_id, m.month, m.impressions, m.clicks, m.spend, m.conversions, m.conversion_value,
         m.video_views, m.video_completions
  from facts_campaign_monthly m, same s
  where m.ad_account_id = any(p_accounts) and m.ad_account_id = any(s.ids) and m.month >= first_full_month(p_from) and m.month < after_full_month(p_from, p_to)
    and (p_campaigns is null or m.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value,
         d.video_views, d.video_completions
  from facts_campaign_daily d, same s
  where d.ad_account_id = any(p_accounts) and d.ad_account_id = any(s.ids) and d.day >= p_from and d.day <= p_to and d.day < first_full_month(p_from)
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value,
         d.video_views, d.video_completions
  from facts_campaign_daily d, same s
  where d.ad_account_id = any(p_accounts) and d.ad_account_id = any(s.ids) and d.day >= after_full_month(p_from, p_to) and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select m.ad_account_id, m.campaign_id, m.month, m.impressions, m.clicks, m.spend, m.conversions, m.conversion_value,
         m.video_views, m.video_completions
  from facts_campaign_monthly_converted m, rolled o
  where m.currency = p_currency and m.ad_account_id = any(p_accounts) and m.ad_account_id = any(o.ids) and m.month >= first_full_month(p_from) and m.month < after_full_month(p_from, p_to)
    and (p_campaigns is null or m.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value,
         d.video_views, d.video_completions
  from facts_campaign_daily_converted d, rolled o
  where d.currency = p_currency and d.ad_account_id = any(p_accounts) and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to and d.day < first_full_month(p_from)
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value,
         d.video_views, d.video_completions
  from facts_campaign_daily_converted d, rolled o
  where d.currency = p_currency and d.ad_account_id = any(p_accounts) and d.ad_account_id = any(o.ids) and d.day >= after_full_month(p_from, p_to) and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
  union all
  select d.ad_account_id, d.campaign_id, d.day, d.impressions, d.clicks, d.spend * x.factor, d.conversions,
         d.conversion_value * x.factor, d.video_views, d.video_completions
  from facts_campaign_daily d
  join accounts a on a.id = d.ad_account_id
  join factors x on x.currency = a.currency and x.day = d.day
  , daily o
  -- Uncorrelated, so PostgreSQL skips the branch when every account has its rollup (a one-time filter).
  where exists (select 1 from accounts where not same and not rolled) and d.ad_account_id = any(p_accounts) and d.ad_account_id = any(o.ids) and d.day >= p_from and d.day <= p_to
    and (p_campaigns is null or d.campaign_id = any(p_campaigns))
$function$;

CREATE OR REPLACE FUNCTION public.report_campaign_periods(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text, p_interval text, p_since timestamp with time zone)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, period date, impressions bigint, clicks bigint, spend double precision, conversions double precision, conversion_value double precision, video_views bigint, video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  select f.ad_account_id, f.campaign_id, period_start('month', f.day), f.impressions, f.clicks, f.spend, f.conversions,
         f.conversion_value, f.video_views, f.video_completions
  from report_campaign_facts(p_accounts, p_campaigns, p_from, p_to, p_currency) f
  where p_interval = 'month'
    and (p_since is null or period_start('month', f.day) in (select c.period from changed_periods(p_accounts, p_from, p_to, 'month', p_since) c))
  union all
  select f.ad_account_id, f.campaign_id, period_start(p_interval, f.day), f.impressions, f.clicks, f.spend,
         f.conversions, f.conversion_value, f.video_views, f.video_completions
  from report_campaign_days(p_accounts, p_campaigns, p_from, p_to, p_currency) f
  where p_interval <> 'month'
    and (p_since is null or period_start(p_interval, f.day) in (select c.period from changed_periods(p_accounts, p_from, p_to, p_interval, p_since) c))
$function$;

CREATE OR REPLACE FUNCTION public.report_campaign_spans(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, impressions bigint, clicks bigint, spend double precision, conversions double precision, conversion_value double precision, video_views bigint, video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  with accounts as (
    select a.id, a.currency, a.currency = p_currency as same,
           exists (select 1 from converted_currencies r where r.organization_id = a.organization_id and r.currency = p_currency) as rolled
    from ad_accounts a where a.id = any(p_accounts)
  ), same as (
    select array_agg(id) as ids from accounts where same
  ), rolled as (
    select array_agg(id) as ids from accounts where not same and rolled
  ), kept as (
    select array_agg(id) as ids from accounts where same or rolled
  ), pieces as materialized (
    select p.level, p.start from report_span_pieces(p_accounts, p_from, p_to) p
  )
  select s.ad_account_id, s.campaign_id, s.impressions, s.clicks, s.spend, s.conversions, s.conversion_value,
         s.video_views, s.video_completions
  from pieces p, kept k
  cross join lateral (
    select * from facts_campaign_spans s
    where s.ad_account_id = any(k.ids) and s.level = p.level and s.start = p.start and s.currency = p_currency
      and (p_campaigns is null or s.campaign_id = any(p_campaigns))
    offset 0
  ) s
  where p.level > 0
  union all
  select d.ad_account_id, d.campaign_id, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value,
         d.video_views, d.video_completions
  from pieces p, same o
  cross join lateral (
    select * from facts_campaign_daily d
    where d.ad_account_id = any(o.ids) and d.day = p.start and (p_campaigns is null or d.campaign_id = any(p_campaigns))
    offset 0
  ) d
  where p.level = 0
  union all
  select d.ad_account_id, d.campaign_id, d.impressions, d.clicks, d.spend, d.conversions, d.conversion_value,
         d.video_views, d.video_completions
  from pieces p, rolled o
  cross join lateral (
    select * from facts_campaign_daily_converted d
    where d.currency = p_currency and d.ad_account_id = any(o.ids) and d.day = p.start
      and (p_campaigns is null or d.campaign_id = any(p_campaigns))
    offset 0
  ) d
  where p.level = 0
  union all
  select f.ad_account_id, f.campaign_id, f.impressions, f.clicks, f.spend, f.conversions, f.conversion_value,
         f.video_views, f.video_completions
  from report_campaign_facts(array(select id from accounts where not same and not rolled), p_campaigns, p_from, p_to,
                             p_currency) f
  where exists (select 1 from accounts where not same and not rolled)
$function$;

CREATE OR REPLACE FUNCTION public.report_creative_days(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, creative_id uuid, day date, impressions bigint, clicks bigint, spend double precision, conversions double precision, conversion_value double precision, video_views bigint, video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  with accounts as (
    select a.id, a.currency, a.currency = p_currency as same from ad_accounts a where a.id = any(p_accounts)
  ), same as (
    select array_agg(id) as ids from accounts where same
  ), other as (
    select array_agg(id) as ids from accounts where not same
  ), factors as materialized (
    select c.currency, d::date as day, fx_factor(c.currency, p_currency, d::date) as factor
    from (select distinct currency from accounts where not same) c
    cross join generate_series(p_from, p_to, interval '1 day') d
  )
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks, f.spend, f.conversions,
         f.conversion_value, f.video_views, f.video_completions
  from facts f, same s
  where f.ad_account_id = any(s.ids) and f.day >= p_from and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks, f.spend * x.factor,
         f.conversions, f.conversion_value * x.factor, f.video_views, f.video_completions
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  , other o
  where exists (select 1 from accounts where not same) and f.ad_account_id = any(o.ids) and f.day >= p_from and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
$function$;

CREATE OR REPLACE FUNCTION public.report_creative_periods(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text, p_interval text, p_since timestamp with time zone)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, creative_id uuid, period date, impressions bigint, clicks bigint, spend double precision, conversions double precision, conversion_value double precision, video_views bigint, video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  select f.ad_account_id, f.campaign_id, f.creative_id, period_start('month', f.day), f.impressions, f.clicks, f.spend,
         f.conversions, f.conversion_value, f.video_views, f.video_completions
  from report_facts(p_accounts, p_campaigns, p_from, p_to, p_currency) f
  where p_interval = 'month'
    and (p_since is null or period_start('month', f.day) in (select c.period from changed_periods(p_accounts, p_from, p_to, 'month', p_since) c))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, period_start(p_interval, f.day), f.impressions, f.clicks,
         f.spend, f.conversions, f.conversion_value, f.video_views, f.video_completions
  from report_creative_days(p_accounts, p_campaigns, p_from, p_to, p_currency) f
  where p_interval <> 'month'
    and (p_since is null or period_start(p_interval, f.day) in (select c.period from changed_periods(p_accounts, p_from, p_to, p_interval, p_since) c))
$function$;

CREATE OR REPLACE FUNCTION public.report_creative_spans(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, creative_id uuid, impressions bigint, clicks bigint, spend double precision, conversions double precision, conversion_value double precision, video_views bigint, video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  with accounts as (
    select a.id, a.currency, a.currency = p_currency as same,
           exists (select 1 from converted_currencies r where r.organization_id = a.organization_id and r.currency = p_currency) as rolled
    from ad_accounts a where a.id = any(p_accounts)
  ), kept as (
    select array_agg(id) as ids from accounts where same or rolled
  ), pieces as materialized (
    select p.level, p.start from report_span_pieces(p_accounts, p_from, p_to) p
  ), day_factors as materialized (
    -- A single day's rate once per currency, not once per fact.
    select c.currency, p.start as day,
           case when c.currency = p_currency then 1::float8 else fx_factor(c.currency, p_currency, p.start) end as factor
    from (select distinct currency from accounts where same or rolled) c
    cross join pieces p
    where p.level = 0
  )
  select c.ad_account_id, c.campaign_id, c.creative_id, c.impressions, c.clicks, c.spend, c.conversions,
         c.conversion_value, c.video_views, c.video_completions
  from pieces p, kept k
  cross join lateral span_creatives(k.ids, p.level, p.start, p.start, p_currency) c
  where p.level > 0 and (p_campaigns is null or c.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.impressions, f.clicks, f.spend * x.factor, f.conversions,
         f.conversion_value * x.factor, f.video_views, f.video_completions
  from pieces p
  join accounts a on a.same or a.rolled
  join day_factors x on x.currency = a.currency and x.day = p.start
  cross join lateral (
    select * from facts f
    where f.ad_account_id = a.id and f.day = p.start and (p_campaigns is null or f.campaign_id = any(p_campaigns))
    offset 0
  ) f
  where p.level = 0
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.impressions, f.clicks, f.spend, f.conversions,
         f.conversion_value, f.video_views, f.video_completions
  from report_facts(array(select id from accounts where not same and not rolled), p_campaigns, p_from, p_to, p_currency) f
  -- Uncorrelated: a one-time filter, so the function is not run at all when every account has its spans.
  where exists (select 1 from accounts where not same and not rolled)
$function$;

CREATE OR REPLACE FUNCTION public.report_creatives(p_accounts uuid[], p_campaigns uuid[])
 RETURNS TABLE(id uuid, name text, campaign_id uuid, external_id text, format text)
 LANGUAGE sql
 STABLE
AS $function$
  select c.id, c.name, c.campaign_id, c.external_id, c.format
  from campaigns k
  cross join lateral (select * from creatives c where c.campaign_id = k.id offset 0) c
  where k.ad_account_id = any(p_accounts) and (p_campaigns is null or k.id = any(p_campaigns))
  offset 0
$function$;

CREATE OR REPLACE FUNCTION public.report_definition(r reports, p_accounts_all boolean, p_account_ids uuid[])
 RETURNS json
 LANGUAGE plpgsql
 STABLE
AS $function$
begin
  return json_build_object(
    'id', r.id, 'organizationId', r.organization_id, 'name', r.name, 'description', r.description,
    'kind', r.kind, 'currency', r.currency,
    'adAccountIds', coalesce((
      select json_agg(ra.ad_account_id order by ra.ad_account_id)
      from report_ad_accounts ra
      where ra.report_id = r.id and (p_accounts_all or ra.ad_account_id = any(p_account_ids))), '[]'),
    'segmentIds', coalesce((
      select json_agg(rs.segment_id order by rs.segment_id) from report_segments rs where rs.report_id = r.id), '[]'),
    'metrics', to_json(r.metrics), 'groupings', to_json(r.groupings),
    'createdAt', to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updatedAt', to_char(r.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
end
$function$;

CREATE OR REPLACE FUNCTION public.report_facts(p_accounts uuid[], p_campaigns uuid[], p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, campaign_id uuid, creative_id uuid, day date, impressions bigint, clicks bigint, spend double precision, conversions double precision, conversion_value double precision, video_views bigint, video_completions bigint)
 LANGUAGE sql
 STABLE
AS $function$
  with accounts as (
    select a.id, a.currency, a.currency = p_currency as same,
           exists (select 1 from converted_currencies r where r.organization_id = a.organization_id and r.currency = p_currency) as rolled
    from ad_accounts a where a.id = any(p_accounts)
  ), same as (
    select array_agg(id) as ids from accounts where same
  ), rolled as (
    select array_agg(id) as ids from accounts where not same and rolled
  ), daily as (
    select array_agg(id) as ids from accounts where not same and not rolled
  ), factors as materialized (
    select c.currency, d::date as day, fx_factor(c.currency, p_currency, d::date) as factor
    from (select distinct currency from accounts where not same) c
    cross join generate_series(p_from, p_to, interval '1 day') d
    where d < first_full_month(p_from) or d >= after_full_month(p_from, p_to) or exists (select 1 from accounts where not same and not rolled)
  )
  select m.ad_account_id, m.campaign_id, m.creative_id, m.month, m.impressions, m.clicks, m.spend, m.conversions,
         m.conversion_value, m.video_views, m.video_completions
  from facts_monthly m, same s
  where m.ad_account_id = any(p_accounts) and m.ad_account_id = any(s.ids) and m.month >= first_full_month(p_from) and m.month < after_full_month(p_from, p_to)
    and (p_campaigns is null or m.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks, f.spend, f.conversions,
         f.conversion_value, f.video_views, f.video_completions
  from facts f, same s
  where f.ad_account_id = any(p_accounts) and f.ad_account_id = any(s.ids) and f.day >= p_from and f.day <= p_to and f.day < first_full_month(p_from)
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks, f.spend, f.conversions,
         f.conversion_value, f.video_views, f.video_completions
  from facts f, same s
  where f.ad_account_id = any(p_accounts) and f.ad_account_id = any(s.ids) and f.day >= after_full_month(p_from, p_to) and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select m.ad_account_id, m.campaign_id, m.creative_id, m.month, m.impressions, m.clicks, m.spend, m.conversions,
         m.conversion_value, m.video_views, m.video_completions
  from facts_monthly_converted m, rolled o
  where m.currency = p_currency and m.ad_account_id = any(p_accounts) and m.ad_account_id = any(o.ids) and m.month >= first_full_month(p_from) and m.month < after_full_month(p_from, p_to)
    and (p_campaigns is null or m.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks, f.spend * x.factor,
         f.conversions, f.conversion_value * x.factor, f.video_views, f.video_completions
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  , rolled o
  where f.ad_account_id = any(p_accounts) and f.ad_account_id = any(o.ids) and f.day >= p_from and f.day <= p_to and f.day < first_full_month(p_from)
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks, f.spend * x.factor,
         f.conversions, f.conversion_value * x.factor, f.video_views, f.video_completions
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  , rolled o
  where f.ad_account_id = any(p_accounts) and f.ad_account_id = any(o.ids) and f.day >= after_full_month(p_from, p_to) and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
  union all
  select f.ad_account_id, f.campaign_id, f.creative_id, f.day, f.impressions, f.clicks, f.spend * x.factor,
         f.conversions, f.conversion_value * x.factor, f.video_views, f.video_completions
  from facts f
  join accounts a on a.id = f.ad_account_id
  join factors x on x.currency = a.currency and x.day = f.day
  , daily o
  -- Uncorrelated, so PostgreSQL skips the branch when every account has its rollup (a one-time filter).
  where exists (select 1 from accounts where not same and not rolled) and f.ad_account_id = any(p_accounts) and f.ad_account_id = any(o.ids) and f.day >= p_from and f.day <= p_to
    and (p_campaigns is null or f.campaign_id = any(p_campaigns))
$function$;

CREATE OR REPLACE FUNCTION public.report_scope_fingerprint(p_report uuid, p_org uuid, p_all_accounts boolean, p_accounts uuid[])
 RETURNS text
 LANGUAGE plpgsql
 STABLE
AS $function$
begin
  return (select concat_ws(' ', r.xmin,
    (select v.version from report_versions v where v.organization_id = p_org),
    (select string_agg(concat_ws(':', ra.xmin, a.xmin, w.xmin), ',' order by a.id)
       from report_ad_accounts ra
       join ad_accounts a on a.id = ra.ad_account_id
       left join fact_account_writes w on w.ad_account_id = a.id
       where ra.report_id = r.id and (p_all_accounts or a.id = any(p_accounts))),
    (select string_agg(rs.xmin::text, ',' order by rs.segment_id) from report_segments rs where rs.report_id = r.id),
    (select md5(string_agg(concat_ws(':', sc.segment_id, sc.xmin), ',' order by sc.segment_id, sc.campaign_id))
       from report_segments rs join segment_campaigns sc on sc.segment_id = rs.segment_id
       where rs.report_id = r.id),
    (select string_agg(m.xmin::text, ',' order by m.id) from custom_metrics m where m.organization_id = p_org))
  from reports r
  where r.id = p_report and r.organization_id = p_org);
end
$function$;

CREATE OR REPLACE FUNCTION public.report_span_pieces(p_accounts uuid[], p_from date, p_to date)
 RETURNS TABLE(level integer, start date)
 LANGUAGE plpgsql
 STABLE
AS $function$
declare
  v_before date;
  v_after date;
  v_wide_from date := p_from;
  v_wide_to date := p_to;
  v_from date := p_from;
  v_to date := p_to;
  v_level integer;
  v_fewest bigint;
  v_count bigint;
  v_pair record;
begin
  -- An account's nearest day each side, one index probe an account: a report of many accounts with facts on every
  -- day around the range would otherwise read them all.
  select max(d.day) into v_before from unnest(p_accounts) a(id)
  cross join lateral (
    select d.day from facts_account_daily d
    where d.ad_account_id = a.id and d.day >= span_start(10, p_from) and d.day < p_from
    order by d.day desc limit 1
  ) d;
  select min(d.day) into v_after from unnest(p_accounts) a(id)
  cross join lateral (
    select d.day from facts_account_daily d
    where d.ad_account_id = a.id and d.day > p_to and d.day < span_start(10, p_to) + 1024
    order by d.day limit 1
  ) d;
  for v_level in reverse 10..1 loop
    if span_start(v_level, p_from) > coalesce(v_before, '-infinity') then
      v_wide_from := span_start(v_level, p_from);
      exit;
    end if;
  end loop;
  for v_level in reverse 10..1 loop
    if span_start(v_level, p_to) + (1 << v_level) - 1 < coalesce(v_after, 'infinity') then
      v_wide_to := span_start(v_level, p_to) + (1 << v_level) - 1;
      exit;
    end if;
  end loop;
  select count(*) into v_fewest from span_pieces(p_from, p_to);
  for v_pair in select c.f, c.t from (values (v_wide_from, p_to), (p_from, v_wide_to), (v_wide_from, v_wide_to)) c(f, t)
  loop
    select count(*) into v_count from span_pieces(v_pair.f, v_pair.t);
    if v_count < v_fewest then
      v_fewest := v_count;
      v_from := v_pair.f;
      v_to := v_pair.t;
    end if;
  end loop;
  return query select p.level, p.start from span_pieces(v_from, v_to) p;
end
$function$;

CREATE OR REPLACE FUNCTION public.span_children(p_account uuid, p_level integer, p_from date, p_to date, p_currency text)
 RETURNS bigint
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  select count(*) from facts_spans s
  where s.ad_account_id = p_account and s.level = p_level and s.start between p_from and p_to and s.currency = p_currency
$function$;

CREATE OR REPLACE FUNCTION public.span_creatives(p_accounts uuid[], p_level integer, p_from date, p_to date, p_currency text)
 RETURNS TABLE(ad_account_id uuid, start date, campaign_id uuid, creative_id uuid, impressions bigint, clicks bigint, spend double precision, conversions double precision, conversion_value double precision, video_views bigint, video_completions bigint)
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  select c.ad_account_id, c.start, c.campaign_id, c.creative_id, c.impressions, c.clicks, c.spend, c.conversions,
         c.conversion_value, c.video_views, c.video_completions
  from (
    select s.ad_account_id, s.start, unnest(s.campaign_ids) as campaign_id, unnest(s.creative_ids) as creative_id,
           unnest(s.impressions) as impressions, unnest(s.clicks) as clicks, unnest(s.spend) as spend,
           unnest(s.conversions) as conversions, unnest(s.conversion_value) as conversion_value,
           unnest(s.video_views) as video_views, unnest(s.video_completions) as video_completions,
           generate_series(1, cardinality(s.creative_ids)) as element
    from facts_spans s
    where s.ad_account_id = any(p_accounts) and s.level = p_level and s.start between p_from and p_to
      and s.currency = p_currency
  ) c
$function$;

CREATE OR REPLACE FUNCTION public.span_pieces(p_from date, p_to date)
 RETURNS TABLE(level integer, start date)
 LANGUAGE plpgsql
 IMMUTABLE PARALLEL SAFE
AS $function$
declare
  v_at date := p_from;
  v_level integer;
begin
  while v_at <= p_to loop
    v_level := 10;
    while v_level > 0
      and (v_level in (1, 9) or span_start(v_level, v_at) <> v_at or v_at + (1 << v_level) - 1 > p_to) loop
      v_level := v_level - 1;
    end loop;
    level := v_level;
    start := v_at;
    return next;
    v_at := v_at + (1 << v_level);
  end loop;
end
$function$;

CREATE OR REPLACE FUNCTION public.span_start(p_level integer, p_day date)
 RETURNS date
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  select date '2000-01-03' + (((p_day - date '2000-01-03') >> p_level) << p_level)
$function$;

CREATE OR REPLACE FUNCTION public.stamp_fact_writes(p_accounts uuid[], p_days date[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
declare
  v_stamp timestamptz;
begin
  if p_accounts is null then
    return;
  end if;
  v_stamp := facts_write_stamp();
  insert into fact_writes as w (ad_account_id, day, written_at)
  select distinct t.ad_account_id, t.day, v_stamp from unnest(p_accounts, p_days) as t(ad_account_id, day)
  order by 1, 2
  on conflict (ad_account_id, day) do update set written_at = greatest(w.written_at, excluded.written_at);
  insert into fact_account_writes as a (ad_account_id, writes)
  select distinct t.ad_account_id, 1 from unnest(p_accounts) as t(ad_account_id)
  order by 1
  on conflict (ad_account_id) do update set writes = a.writes + 1;
end
$function$;

CREATE OR REPLACE FUNCTION public.usd_rate_on(p_currency text, p_day date)
 RETURNS double precision
 LANGUAGE sql
 STABLE
AS $function$
  select case when p_currency = 'USD' then 1.0::double precision
    else (select r.usd_per_unit from fx_rates r where r.currency = p_currency and r.day <= p_day order by r.day desc limit 1) end
$function$;

CREATE TRIGGER facts_named_accounts AFTER DELETE ON ad_accounts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION refuse_orphaned_facts();
CREATE TRIGGER writers_lock BEFORE DELETE ON ad_accounts FOR EACH STATEMENT EXECUTE FUNCTION lock_writers_before_statement();
CREATE TRIGGER facts_named_campaigns AFTER DELETE ON campaigns REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION refuse_orphaned_facts();
CREATE TRIGGER writers_lock BEFORE DELETE ON campaigns FOR EACH STATEMENT EXECUTE FUNCTION lock_writers_before_statement();
CREATE TRIGGER facts_named_creatives AFTER DELETE ON creatives REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION refuse_orphaned_facts();
CREATE TRIGGER writers_lock BEFORE DELETE ON creatives FOR EACH STATEMENT EXECUTE FUNCTION lock_writers_before_statement();
CREATE TRIGGER declared_written_delete AFTER DELETE ON facts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION declared_after_write();
CREATE TRIGGER declared_written_insert AFTER INSERT ON facts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION declared_after_write();
CREATE TRIGGER declared_written_update AFTER UPDATE ON facts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION declared_after_write();
CREATE TRIGGER facts_written_delete AFTER DELETE ON facts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION facts_after_write();
CREATE TRIGGER facts_written_insert AFTER INSERT ON facts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION facts_after_write();
CREATE TRIGGER facts_written_update AFTER UPDATE ON facts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION facts_after_write();
CREATE TRIGGER writers_lock BEFORE INSERT OR DELETE OR UPDATE ON facts FOR EACH STATEMENT EXECUTE FUNCTION lock_writers_before_statement();
CREATE TRIGGER facts_campaign_daily_accounts_delete AFTER DELETE ON facts_campaign_daily REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION facts_account_daily_after_write();
CREATE TRIGGER facts_campaign_daily_accounts_insert AFTER INSERT ON facts_campaign_daily REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION facts_account_daily_after_write();
CREATE TRIGGER facts_campaign_daily_accounts_update AFTER UPDATE ON facts_campaign_daily REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION facts_account_daily_after_write();
CREATE TRIGGER facts_campaign_daily_converted_accounts_delete AFTER DELETE ON facts_campaign_daily_converted REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION facts_account_daily_converted_after_write();
CREATE TRIGGER facts_campaign_daily_converted_accounts_insert AFTER INSERT ON facts_campaign_daily_converted REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION facts_account_daily_converted_after_write();
CREATE TRIGGER facts_campaign_daily_converted_accounts_update AFTER UPDATE ON facts_campaign_daily_converted REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION facts_account_daily_converted_after_write();
CREATE TRIGGER converted_rollups_rates_delete AFTER DELETE ON fx_rates REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION converted_rollups_after_rates();
CREATE TRIGGER converted_rollups_rates_insert AFTER INSERT ON fx_rates REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION converted_rollups_after_rates();
CREATE TRIGGER converted_rollups_rates_update AFTER UPDATE ON fx_rates REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION converted_rollups_after_rates();
CREATE TRIGGER fact_writes_rates_delete AFTER DELETE ON fx_rates REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION fact_writes_after_rates();
CREATE TRIGGER fact_writes_rates_insert AFTER INSERT ON fx_rates REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION fact_writes_after_rates();
CREATE TRIGGER fact_writes_rates_update AFTER UPDATE ON fx_rates REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION fact_writes_after_rates();
CREATE TRIGGER writers_lock BEFORE INSERT OR DELETE OR UPDATE ON fx_rates FOR EACH STATEMENT EXECUTE FUNCTION lock_writers_before_statement();
CREATE TRIGGER writers_lock BEFORE DELETE ON organizations FOR EACH STATEMENT EXECUTE FUNCTION lock_writers_before_statement();
CREATE TRIGGER report_ad_accounts_version_delete AFTER DELETE ON report_ad_accounts REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_report_versions();
CREATE TRIGGER report_ad_accounts_version_insert AFTER INSERT ON report_ad_accounts REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_report_versions();
CREATE TRIGGER report_ad_accounts_version_update AFTER UPDATE ON report_ad_accounts REFERENCING OLD TABLE AS old_rows NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_report_versions();
CREATE TRIGGER report_segments_version_delete AFTER DELETE ON report_segments REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_report_versions();
CREATE TRIGGER report_segments_version_insert AFTER INSERT ON report_segments REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_report_versions();
CREATE TRIGGER report_segments_version_update AFTER UPDATE ON report_segments REFERENCING OLD TABLE AS old_rows NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_report_versions();
CREATE TRIGGER converted_rollups_report_currency AFTER INSERT OR UPDATE OF currency ON reports FOR EACH ROW EXECUTE FUNCTION converted_rollups_for_report();
CREATE TRIGGER reports_version_delete AFTER DELETE ON reports REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_report_versions();
CREATE TRIGGER reports_version_insert AFTER INSERT ON reports REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_report_versions();
CREATE TRIGGER reports_version_update AFTER UPDATE ON reports REFERENCING OLD TABLE AS old_rows NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_report_versions();
CREATE TRIGGER writers_lock BEFORE INSERT OR UPDATE OF currency ON reports FOR EACH STATEMENT EXECUTE FUNCTION lock_writers_before_statement();
