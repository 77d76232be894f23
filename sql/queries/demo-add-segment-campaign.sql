-- Campaign $3 in the demo segment $2 of organization $1.
insert into segment_campaigns (organization_id, segment_id, campaign_id) values ($1, $2, $3) on conflict do nothing
