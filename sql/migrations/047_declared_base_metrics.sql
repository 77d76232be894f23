-- Base metrics an operator declares per organization (docs/decisions.md §5): kept beside the custom metrics, whose
-- names they share, with a slot instead of a formula. A fact holds their numbers in `declared`, by slot (1 to 8):
-- null where its organization declared none when it was written, which reads as 0, as does a slot past its end.
alter table custom_metrics alter column formula drop not null;
alter table custom_metrics add column slot smallint;
alter table custom_metrics add column whole boolean;
alter table custom_metrics add column conversion_derived boolean not null default false;
alter table custom_metrics add constraint custom_metrics_slot_check check (slot between 1 and 8);
alter table custom_metrics add constraint custom_metrics_declared_check
  check ((slot is null) = (formula is not null) and (slot is null or kind in ('count', 'money')));
alter table custom_metrics add constraint custom_metrics_organization_id_slot_key unique (organization_id, slot);

-- Nullable and without a default: no table rewrite, and no bytes in a fact of an organization that declares none.
alter table facts add column declared double precision[];
alter table facts alter column declared set statistics 0;
