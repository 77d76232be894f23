-- 045: a creative's campaign and organization checked by one foreign key, as are a campaign's account and
-- organization: one check a row inserted, not one for its parent and one for its organization (BENCHMARKS.md,
-- "Loading facts"), and a stronger rule: a row's organization is its parent's, which two keys would not hold. The
-- organization still exists, through the parent's own key.
alter table ad_accounts add constraint ad_accounts_id_organization_id_key unique (id, organization_id);
alter table campaigns add constraint campaigns_id_organization_id_key unique (id, organization_id);
alter table campaigns add constraint campaigns_ad_account_in_organization_fkey
  foreign key (ad_account_id, organization_id) references ad_accounts (id, organization_id);
alter table campaigns drop constraint campaigns_ad_account_id_fkey;
alter table campaigns drop constraint campaigns_organization_id_fkey;
alter table creatives add constraint creatives_campaign_in_organization_fkey
  foreign key (campaign_id, organization_id) references campaigns (id, organization_id);
alter table creatives drop constraint creatives_campaign_id_fkey;
alter table creatives drop constraint creatives_organization_id_fkey;
