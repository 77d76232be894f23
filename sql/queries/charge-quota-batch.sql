-- Charges, in order, client $3[i] of organization $1 the cost $4[i] in the window starting $2, taking after it a
-- lease of at most $5[i] units (0: none; migration 011 sizes it); one row per charge, in the same order: outcome,
-- budget, used after it (lease included), the units leased; and, read in the same statement, the organization's
-- report version (migration 010; 0 before its first change), so a report answer kept from that version or later is
-- current.
-- not null: outcome, budget, used, leased, reportsVersion
select c.outcome, c.budget, c.used, c.leased,
       coalesce((select v.version from report_versions v where v.organization_id = $1), 0)::float8 as "reportsVersion"
from charge_quota_leasing($1, $2, $3, $4, $5) c
