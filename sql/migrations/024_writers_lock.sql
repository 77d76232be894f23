-- 024: one lock order for every writer (docs/decisions.md §14). Facts, exchange rates and report currencies are
-- written behind one exclusive advisory lock (727019, the key of migration 019's converted-rollups lock), taken
-- before any row: the commands take it as their transaction's first statement, and a statement-level trigger takes it
-- before a plain SQL statement touches a row. Shared by fact writers and taken after their rows and migration 021's
-- stamps, as 019 takes it, a rate import waiting for it exclusively would close a cycle with them.

-- The writers' lock, held until the transaction ends. A transaction that writes facts, rates or report currencies in
-- several statements calls it first.
--
-- Such a write becomes visible only once its WAL is flushed, whatever synchronous_commit the server or the writer's
-- connection has: a read on a standby waits for the primary's flushed WAL (src/store/replicas.ts), so the changes
-- feed's resume point must not pass a write that is visible on the primary and not yet flushed (docs/decisions.md §6).
create function lock_writers()
returns void
language plpgsql as $$
begin
  perform pg_advisory_xact_lock(727019);
  if current_setting('synchronous_commit') = 'off' then
    perform set_config('synchronous_commit', 'local', true);
  end if;
end
$$;

-- Migration 019's triggers call this: the same lock, exclusive whatever they ask (taken already by then).
create or replace function lock_converted_rollups(p_exclusive boolean)
returns void
language sql as $$
  select lock_writers()
$$;

create function lock_writers_before_statement()
returns trigger
language plpgsql as $$
begin
  perform lock_writers();
  return null;
end
$$;

-- Before the statement reads or locks a row; a delete of an organization, an ad account, a campaign or a creative
-- cascades to facts.
create trigger writers_lock before insert or update or delete on facts
  for each statement execute function lock_writers_before_statement();
create trigger writers_lock before insert or update or delete on fx_rates
  for each statement execute function lock_writers_before_statement();
create trigger writers_lock before insert or update of currency on reports
  for each statement execute function lock_writers_before_statement();
create trigger writers_lock before delete on organizations
  for each statement execute function lock_writers_before_statement();
create trigger writers_lock before delete on ad_accounts
  for each statement execute function lock_writers_before_statement();
create trigger writers_lock before delete on campaigns
  for each statement execute function lock_writers_before_statement();
create trigger writers_lock before delete on creatives
  for each statement execute function lock_writers_before_statement();
