-- 012: export rows rendered by PostgreSQL. A large export's rows are written as CSV lines or worksheet rows in the
-- query itself (src/reportData/rendered.ts), so the server only passes text on instead of parsing, computing and
-- formatting every cell; they must come out byte for byte as the server's own rendering (exportFormats.ts) would
-- write them, which test/rendered.test.ts holds them to.

-- JavaScript's Math.round: halves round up, towards +Infinity. (PostgreSQL's round() takes halves away from zero.)
create function js_round(x double precision) returns double precision
language sql immutable parallel safe as $$
  select case when ceil(x) - 0.5::float8 > x then ceil(x) - 1::float8 else ceil(x) end
$$;

-- The rest of js_number: PostgreSQL's shortest exponent form ("1.25e-05", "1e+15") rewritten as JavaScript's
-- Number.prototype.toString writes it (ECMA-262 §6.1.6.1.20): plain digits from 1e-7 up to 1e21, and an exponent
-- without leading zeros beyond.
create function js_number_exponent(t text) returns text
language plpgsql immutable parallel safe as $$
declare
  m text[] := regexp_match(t, '^(-?)([0-9])(?:\.([0-9]+))?e([-+][0-9]+)$');
  digits text;
  k int;
  n int;
  out text;
begin
  if m is null then
    return t;
  end if;
  digits := m[2] || coalesce(m[3], '');
  k := length(digits);
  n := m[4]::int + 1; -- the value is 0.digits × 10^n
  if k <= n and n <= 21 then
    out := digits || repeat('0', n - k);
  elsif 0 < n and n <= 21 then
    out := left(digits, n) || '.' || substr(digits, n + 1);
  elsif -6 < n and n <= 0 then
    out := '0.' || repeat('0', -n) || digits;
  else
    out := left(digits, 1) || case when k > 1 then '.' || substr(digits, 2) else '' end
        || 'e' || case when n - 1 >= 0 then '+' else '-' end || abs(n - 1)::text;
  end if;
  return m[1] || out;
end
$$;

-- A number as JavaScript's String(number) writes it. Both print the shortest digits that read back as the same
-- double (PostgreSQL 12 and later, with extra_float_digits above 0, which the server's connections set); they differ
-- only in where they switch to an exponent, and -0, which JavaScript writes as 0.
create function js_number(v double precision) returns text
language sql immutable parallel safe as $$
  select case when v = 0 then '0'
              when abs(v) >= 1e-4 and abs(v) < 1e15 then v::text
              else js_number_exponent(v::text) end
$$;

-- The functions below are single expressions over their argument, so that PostgreSQL inlines them into the query
-- instead of calling them once a cell; the query hands them plain columns (rendered.ts).

-- OWASP CSV injection: text a spreadsheet would run as a formula gets a leading quote (exportFormats.ts neutralised).
create function export_neutralised(x text) returns text
language sql immutable parallel safe as $$
  select case when left(x, 1) in ('=', '+', '-', '@', E'\t', E'\r') then '''' || x else x end
$$;

-- One CSV field of dimension text (exportFormats.ts csvRecord): neutralised, then quoted where RFC 4180 needs it (the
-- quote that neutralises is none of the characters that need it).
create function export_csv_text(x text) returns text
language sql immutable parallel safe as $$
  select case when x ~ '[",\r\n]' then '"' || replace(export_neutralised(x), '"', '""') || '"' else export_neutralised(x) end
$$;

-- Dimension text in a worksheet cell (sheetRow.ts): neutralised, characters XML 1.0 cannot hold dropped (PostgreSQL
-- text holds no NUL and no lone surrogate), then &, < and > escaped.
create function export_xml_text(x text) returns text
language sql immutable parallel safe as $$
  select replace(replace(replace(
           case when left(x, 1) in ('=', '+', '-', '@', E'\t', E'\r') then '''' else '' end
           || case when x ~ '[\x01-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]'
                   then regexp_replace(x, '[\x01-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]', '', 'g') else x end,
         '&', '&amp;'), '<', '&lt;'), '>', '&gt;')
$$;
