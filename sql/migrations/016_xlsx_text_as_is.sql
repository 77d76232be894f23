-- 016: an XLSX text cell holds its text as it is. A worksheet's inline string is never evaluated as a formula, so the
-- apostrophe that guards a CSV cell (CSV injection) protected nothing there and showed the quote to the reader.
create or replace function export_xml_text(x text) returns text
language sql immutable parallel safe as $$
  select replace(replace(replace(
           case when x ~ '[\x01-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]'
                then regexp_replace(x, '[\x01-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]', '', 'g') else x end,
         '&', '&amp;'), '<', '&lt;'), '>', '&gt;')
$$;
