-- Returns the first and last day with facts among ad accounts $1 (and campaigns $2, unless null): a months report's span.
select to_char(min(day), 'YYYY-MM-DD') as first, to_char(max(day), 'YYYY-MM-DD') as last
from facts
where ad_account_id = any($1::uuid[]) and ($2::uuid[] is null or campaign_id = any($2::uuid[]))
