-- Organization $1, locked until the transaction ends: two applies to one organization run one after the other.
select id from organizations where id = $1 for update
