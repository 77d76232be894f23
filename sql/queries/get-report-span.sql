-- Returns the first and last day with facts among ad accounts :accountIds (and campaigns :campaignIds, unless null): a
-- months report's span.
select to_char(min(day), 'YYYY-MM-DD') as first, to_char(max(day), 'YYYY-MM-DD') as last
from facts
where ad_account_id = any(:accountIds::uuid[]) and (:campaignIds::uuid[] is null or campaign_id = any(:campaignIds::uuid[]))
