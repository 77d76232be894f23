-- The facts' tables a load grew by a tenth or more, every one with :all (a delete), largest first: analysed once the
-- load has committed, so the first report read after a large load is planned from what is there, not from an empty
-- table's guess (analyze-fact-table).
-- not null: table_name
select t as table_name from facts_tables_to_analyze(:all) t
