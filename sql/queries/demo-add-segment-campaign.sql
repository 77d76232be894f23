-- Campaign :campaign in the demo segment :segment of organization :org.
insert into segment_campaigns (organization_id, segment_id, campaign_id) values (:org, :segment, :campaign) on conflict do nothing
