-- Organization $1's segments for the operator: id, name, description, campaign count.
select s.id, s.name, s.description,
       (select count(*)::int from segment_campaigns c where c.segment_id = s.id) as campaigns
from segments s where s.organization_id = $1
order by s.name, s.id
