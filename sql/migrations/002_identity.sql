-- 002: organizations, API clients with their allow-lists and secrets, and the token signing keys
-- (docs/decisions.md §9).

create table organizations (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(name) between 1 and 200),
  currency text not null default 'USD' check (currency ~ '^[A-Z]{3}$'),
  time_zone text not null default 'UTC',
  created_at timestamptz not null default now()
);

create table api_clients (
  id text primary key check (id ~ '^rdc_[0-9a-f]{32}$'),
  organization_id uuid not null references organizations (id),
  name text not null check (length(name) between 1 and 200),
  scopes text[] not null,
  -- An allow-list is lifted (the "all" wildcard) when its flag is set; the array is then empty.
  reports_all boolean not null default false,
  report_ids uuid[] not null default '{}',
  ad_accounts_all boolean not null default false,
  ad_account_ids uuid[] not null default '{}',
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index api_clients_organization on api_clients (organization_id);
create index api_clients_revoked on api_clients (revoked_at) where revoked_at is not null;

create table client_secrets (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  client_id text not null references api_clients (id),
  -- SHA-256 of the secret: secrets carry 256 random bits, so a fast hash cannot be brute-forced.
  secret_hash bytea not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz,
  revoked_at timestamptz
);
create index client_secrets_client on client_secrets (client_id);

create table signing_keys (
  kid text primary key,
  secret bytea not null,
  created_at timestamptz not null default now(),
  retired_at timestamptz
);
