-- Returns an organization's clients (:org) with their secrets' ids and dates; never a hash.
-- not null: id, name, scopes, reports_all, report_ids, ad_accounts_all, ad_account_ids, created_at
select c.id, c.name, c.scopes, c.reports_all, c.report_ids, c.ad_accounts_all, c.ad_account_ids, c.created_at, c.revoked_at,
       coalesce(
         json_agg(json_build_object('secretId', s.id, 'createdAt', s.created_at, 'expiresAt', s.expires_at, 'revokedAt', s.revoked_at)
                  order by s.created_at) filter (where s.id is not null),
         '[]') as secrets
from api_clients c
left join client_secrets s on s.client_id = c.id
where c.organization_id = :org
group by c.id
order by c.created_at, c.id
