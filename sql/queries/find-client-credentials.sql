-- Returns the client (revoked or not) with the hashes of its secrets that are usable at :now: not revoked, not expired.
-- not null: id, organization_id, scopes, reports_all, report_ids, ad_accounts_all, ad_account_ids, secret_hashes
select c.id, c.organization_id, c.scopes, c.reports_all, c.report_ids, c.ad_accounts_all, c.ad_account_ids,
       c.revoked_at,
       coalesce(array_agg(s.secret_hash) filter (where s.id is not null), '{}') as secret_hashes
from api_clients c
left join client_secrets s
  on s.client_id = c.id and s.revoked_at is null and (s.expires_at is null or s.expires_at > :now)
where c.id = :id
group by c.id
