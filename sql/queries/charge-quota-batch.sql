-- Charges, in order, client :clients[i] of organization :org the cost :costs[i] in the window starting :window, taking
-- after it a lease of at most :leases[i] units (0: none; migration 011 sizes it); one row per charge, in the same
-- order: outcome, budget, used after it (lease included), the units leased; and, read in the same statement, the
-- organization's report version (migration 010; 0 before its first change), so a report answer kept from that version
-- or later is current.
-- not null: outcome, budget, used, leased, reportsVersion
select c.outcome, c.budget, c.used, c.leased,
       coalesce((select v.version from report_versions v where v.organization_id = :org), 0)::float8 as "reportsVersion"
from charge_quota_leasing(:org, :window, :clients, :costs, :leases) c
