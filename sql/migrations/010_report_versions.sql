-- 010: a version number for each organization's report definitions, so the API can keep them in memory.
--
-- Every write to reports, report_ad_accounts or report_segments, whoever makes it (the operator commands, an
-- import, a hand-written statement), moves its organizations' version on by one, in the writing transaction: the
-- new number is seen exactly when the change is. A request's charge reads its organization's version in the same
-- statement as the charge, so an answer kept from a version at least that new is never older than the charge.
-- The counter row is locked until the writer commits; writers of one organization's reports take turns.
create table report_versions (
  organization_id uuid primary key references organizations (id) on delete cascade,
  version bigint not null
);

-- A statement-level trigger: one row a statement however many rows it wrote.
create function bump_report_versions() returns trigger
language plpgsql as $$
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
$$;

-- The same three triggers on each table a report definition is read from (report_definition, migration 009).
do $$
declare
  t text;
begin
  foreach t in array array['reports', 'report_ad_accounts', 'report_segments'] loop
    execute format('create trigger %I after insert on %I referencing new table as changed_rows
                    for each statement execute function bump_report_versions()', t || '_version_insert', t);
    execute format('create trigger %I after update on %I referencing old table as old_rows new table as changed_rows
                    for each statement execute function bump_report_versions()', t || '_version_update', t);
    execute format('create trigger %I after delete on %I referencing old table as changed_rows
                    for each statement execute function bump_report_versions()', t || '_version_delete', t);
  end loop;
end
$$;
