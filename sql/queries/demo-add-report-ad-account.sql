-- Ad account :adAccount in the demo report :report of organization :org.
insert into report_ad_accounts (organization_id, report_id, ad_account_id) values (:org, :report, :adAccount) on conflict do nothing
