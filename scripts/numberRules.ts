// The code numberRules.ts's declarations make (npm run sql:lattice writes both): formulaOperations.ts, a custom
// formula's operations in JavaScript, and the SQL functions PostgreSQL computes and writes numbers with for the rows it
// renders (js_round, js_number, formula_mul and the others), a section of sql/lattice/lattice.sql.
import {
  DECIMALS,
  FORMULA_BOUND,
  FORMULA_OPERATIONS,
  PLAIN_DIGITS,
  type FormulaOperation,
} from '../src/report/numberRules.ts';

export const OPERATIONS_FILE = 'src/report/formulaOperations.ts';

/** A case's expression in JavaScript. */
const js = (expression: string) =>
  expression
    .replace(/\babs\(/g, 'Math.abs(')
    .replace(/\band\b/g, '&&')
    .replace(/\bor\b/g, '||')
    .replace(/ = /g, ' === ')
    .replace(/\bBOUND\b/g, 'FORMULA_BOUND')
    .replace(/\bTINY\b/g, 'TINY');

/** A case's expression in SQL over double precision: the bounds as float8 literals of the same doubles. */
const sql = (expression: string) =>
  expression
    .replace(/\bBOUND\b/g, `${String(FORMULA_BOUND)}::float8`)
    .replace(/\bTINY\b/g, `${String(1 / FORMULA_BOUND)}::float8`)
    .replace(/^0$/, '0::float8');

const functionName = (name: FormulaOperation) => `formula${name[0].toUpperCase()}${name.slice(1)}`;

export function formulaOperationsSource(): string {
  const functions = Object.entries(FORMULA_OPERATIONS).map(([name, cases]) => {
    const body = cases.map(([when, value]) =>
      when === 'else' ? `  return ${js(value)};` : `  if (${js(when)}) return ${js(value)};`,
    );
    return [
      `export function ${functionName(name as FormulaOperation)}(a: number, b: number): number | null {`,
      ...body,
      '}',
    ].join('\n');
  });
  return [
    '// Written by `npm run sql:lattice` from FORMULA_OPERATIONS (numberRules.ts), as are their SQL functions',
    '// (formula_mul and the others, sql/lattice/lattice.sql). Do not edit; change the declaration and run it again.',
    "import { FORMULA_BOUND } from './numberRules.ts';",
    '',
    'const TINY = 1 / FORMULA_BOUND;',
    '',
    functions.join('\n\n'),
    '',
  ].join('\n');
}

/** The SQL functions of the number rules, replacing any of the same name. */
export function numberRulesSql(): string {
  const operations = Object.entries(FORMULA_OPERATIONS).map(([name, cases]) => {
    const branches = cases.map(([when, value], i) =>
      when === 'else' ? `else ${sql(value)} end` : `${i === 0 ? 'case' : '    '} when ${sql(when)} then ${sql(value)}`,
    );
    return [
      `create or replace function formula_${name}(a double precision, b double precision) returns double precision`,
      'language sql immutable parallel safe as $$',
      `  select ${branches.join('\n         ')}`,
      '$$;',
    ].join('\n');
  });
  const { after, upTo } = PLAIN_DIGITS;
  return `-- How numbers are computed and written (src/report/numberRules.ts): rendered rows write them as the server does.

-- JavaScript's Math.round: halves round up, towards +Infinity (PostgreSQL's round() takes them away from zero). Metric
-- values are rounded to ${DECIMALS} decimal places with it (tidySql).
create or replace function js_round(x double precision) returns double precision
language sql immutable parallel safe as $$
  select case when ceil(x) - 0.5::float8 > x then ceil(x) - 1::float8 else ceil(x) end
$$;

-- The rest of js_number: PostgreSQL's shortest exponent form ("1.25e-05", "1e+15") rewritten as JavaScript's
-- Number::toString writes it: 0.digits × 10^n in plain digits for ${after} < n <= ${upTo}, an exponent without leading
-- zeros beyond.
create or replace function js_number_exponent(t text) returns text
language plpgsql immutable parallel safe as $$
declare
  m text[] := regexp_match(t, '^(-?)([0-9])(?:\\.([0-9]+))?e([-+][0-9]+)$');
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
  if k <= n and n <= ${upTo} then
    out := digits || repeat('0', n - k);
  elsif 0 < n and n <= ${upTo} then
    out := left(digits, n) || '.' || substr(digits, n + 1);
  elsif ${after} < n and n <= 0 then
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
-- only in where they switch to an exponent (PostgreSQL below 1e-4 and from 1e15), and -0, which JavaScript writes as 0.
create or replace function js_number(v double precision) returns text
language sql immutable parallel safe as $$
  select case when v = 0 then '0'
              when abs(v) >= 1e-4 and abs(v) < 1e15 then v::text
              else js_number_exponent(v::text) end
$$;

-- A custom formula's operations (FORMULA_OPERATIONS), as formulaOperations.ts has them in JavaScript: the same IEEE
-- operations in the same order, null past ${String(FORMULA_BOUND)} where PostgreSQL would raise an error. Null in, null out.
${operations.join('\n\n')}
`;
}
