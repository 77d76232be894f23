-- Organization :org, locked until the transaction ends: two applies to one organization run one after the other.
select id from organizations where id = :org for update
