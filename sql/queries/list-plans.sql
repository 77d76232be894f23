-- Returns every plan code.
select code from plans order by hourly_budget, code
