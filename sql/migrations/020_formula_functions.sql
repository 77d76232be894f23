-- 020: custom metric formulas evaluated by PostgreSQL (docs/decisions.md §5), so answers with one are rendered and
-- sorted in the query and streamed like any other. Each function is formula.ts's operation of the same name, the same
-- IEEE double operations in the same order, with the same guards: where a double would overflow, or underflow to zero
-- (PostgreSQL raises an error for both; JavaScript gives Infinity or 0), the value is null or 0 instead, at 1e300. Null
-- in, null out; a division by zero is null.

create function formula_mul(a double precision, b double precision) returns double precision
language sql immutable parallel safe as $$
  select case when a = 0 or b = 0 then a * b
              when abs(a) > 1 and abs(b) > 1e300::float8 / abs(a) then null
              when abs(a) < 1 and abs(b) < 1e-300::float8 / abs(a) then 0::float8
              else a * b end
$$;

create function formula_div(a double precision, b double precision) returns double precision
language sql immutable parallel safe as $$
  select case when b = 0 then null
              when a = 0 then a / b
              when abs(b) < 1 and abs(a) > 1e300::float8 * abs(b) then null
              when abs(b) > 1 and abs(a) < 1e-300::float8 * abs(b) then 0::float8
              else a / b end
$$;

create function formula_add(a double precision, b double precision) returns double precision
language sql immutable parallel safe as $$
  select case when abs(a) <= 1e300::float8 and abs(b) <= 1e300::float8 then a + b end
$$;

create function formula_sub(a double precision, b double precision) returns double precision
language sql immutable parallel safe as $$
  select case when abs(a) <= 1e300::float8 and abs(b) <= 1e300::float8 then a - b end
$$;
