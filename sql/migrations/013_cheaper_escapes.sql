-- 013: the export text functions of 012, the same text for less work; they run once a text cell of every exported
-- row. A regular expression converts its subject to wide characters before it matches, and left() copies the first
-- character out as a new text value; strpos() and ascii() read the text in place. The test of 012
-- (test/rendered.test.ts) holds them to the same bytes as the server's own rendering.

-- ascii() is the first character's code point, 0 for the empty text: = + - @ tab carriage return.
create or replace function export_neutralised(x text) returns text
language sql immutable parallel safe as $$
  select case when ascii(x) in (61, 43, 45, 64, 9, 13) then '''' || x else x end
$$;

create or replace function export_csv_text(x text) returns text
language sql immutable parallel safe as $$
  select case when strpos(x, '"') > 0 or strpos(x, ',') > 0 or strpos(x, E'\r') > 0 or strpos(x, E'\n') > 0
              then '"' || replace(export_neutralised(x), '"', '""') || '"' else export_neutralised(x) end
$$;

create or replace function export_xml_text(x text) returns text
language sql immutable parallel safe as $$
  select replace(replace(replace(
           case when ascii(x) in (61, 43, 45, 64, 9, 13) then '''' else '' end
           || case when x ~ '[\x01-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]'
                   then regexp_replace(x, '[\x01-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]', '', 'g') else x end,
         '&', '&amp;'), '<', '&lt;'), '>', '&gt;')
$$;
