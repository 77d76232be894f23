-- Whether report :report's scope, as organization :org's client may read it (report allow-list :reportsAll all, or ids
-- :reportIds; ad-account allow-list :adAccountsAll all, or ids :adAccountIds), can have changed since it was read in
-- snapshot :snapshot: this statement's snapshot, and unless it is :snapshot, the scope's fingerprint (migration 023),
-- null when out of reach.
--
-- pg_current_snapshot() is the statement's own snapshot: xmin:xmax:the transactions still running. A transaction that
-- ends (commits or rolls back) either leaves that list or, if it began after xmax, moves xmax past itself. So while the
-- text is :snapshot's, no transaction has committed since :snapshot was taken, and a write needs one: nothing the scope
-- was read from has changed, and the fingerprint is not computed. Any transaction that ends anywhere in the cluster
-- moves it. On a standby the running transactions are not in that list (PostgreSQL keeps them with the subtransactions
-- there), and one can end without moving the text: no snapshot there (null, equal to nothing), and the fingerprint
-- decides. Written out here and in get-report-scope rather than as a function: a SQL function that calls
-- pg_is_in_recovery() is not inlined, and its call cost more than the rest of the statement.
select s.snapshot,
       case when s.snapshot = :snapshot then null
       else (select report_scope_fingerprint(r.id, r.organization_id, :adAccountsAll, :adAccountIds)
             from reports r
             where r.id = :report and r.organization_id = :org and (:reportsAll::boolean or r.id = any(:reportIds::uuid[])))
       end as fingerprint
from (select case when pg_is_in_recovery() then null else pg_current_snapshot()::text end as snapshot) s
