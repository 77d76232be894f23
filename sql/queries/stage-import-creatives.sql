-- Adds a batch of creatives to the creatives' staging table, one array a column (:creative .. :repeats, in the table's
-- order; a null status leaves a campaign's as it is; repeats as 't' or 'f').
insert into import_creatives (creative, line, platform, account_external_id, account_name, currency,
                              account_first_line, campaign_external_id, campaign_name, campaign_status,
                              creative_external_id, creative_name, format, repeats)
select c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14::boolean
from unnest(:creative::int[], :line::int[], :platform::text[], :accountExternalId::text[], :accountName::text[], :currency::text[], :accountFirstLine::int[], :campaignExternalId::text[], :campaignName::text[],
            :campaignStatus::text[], :creativeExternalId::text[], :creativeName::text[], :format::text[], :repeats::text[])
  as t(c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14)
