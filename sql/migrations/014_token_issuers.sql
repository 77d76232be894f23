-- Every issuer (BASE_URL) that a process over this database signs tokens as. A process accepts tokens of any of them,
-- so processes on different addresses over one database accept each other's tokens without a shared setting; the
-- signing keys are shared already, and a token still needs one of them.
create table token_issuers (
  issuer text primary key,
  registered_at timestamptz not null default now()
);
