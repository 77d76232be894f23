-- Creates an API client; returns its id. :id, :org organization, :name, :scopes, :reportsAll..:adAccountIds
-- allow-lists.
insert into api_clients (id, organization_id, name, scopes, reports_all, report_ids, ad_accounts_all, ad_account_ids)
values (:id, :org, :name, :scopes, :reportsAll, :reportIds, :adAccountsAll, :adAccountIds)
returning id
