// How numbers are computed and written is declared once (src/report/numberRules.ts) and made into JavaScript and SQL
// (scripts/numberRules.ts): both are current, and give the same values, as the server's JSON and CSV and PostgreSQL's
// XLSX rows must.
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formulaOperationsSource, OPERATIONS_FILE } from '../scripts/numberRules.ts';
import { formulaAdd, formulaDiv, formulaMul, formulaSub } from '../src/report/formulaOperations.ts';
import { FORMULA_BOUND, tidy, tidySql } from '../src/report/numberRules.ts';
import { freshDatabase, type TestDatabase } from './support/database.ts';

const it = suite<{ db: TestDatabase }>('number rules');
it.before(async (ctx) => {
  ctx.db = await freshDatabase();
});
it.after(async (ctx) => ctx.db.close());

/** A double's text as float8in reads it back exactly, -0 included (String(-0) is "0"). */
const exact = (x: number) => (Object.is(x, -0) ? '-0' : String(x));

/** Doubles of every kind a sum or a formula can meet: zeros, subnormals, the bounds, and any finite value. */
const doubles = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1, -1, 0.5, 5e-324, -5e-324, FORMULA_BOUND, 1 / FORMULA_BOUND, Number.MAX_VALUE, 1e15, 1e21),
  fc.integer({ min: -1e9, max: 1e9 }).map((n) => n / 1e3),
);

it('formulaOperations.ts is what the declaration makes', () => {
  assert.fixture(readFileSync(OPERATIONS_FILE, 'utf8'), formulaOperationsSource());
});

it("a formula's operations give the same values in JavaScript and in PostgreSQL", async ({ db }) => {
  const pairs = fc.sample(fc.tuple(doubles, doubles), 2000);
  const rows = await db.sql.unsafe<
    { mul: number | null; div: number | null; add: number | null; sub: number | null }[]
  >(
    `select formula_mul(a, b) as mul, formula_div(a, b) as div, formula_add(a, b) as add, formula_sub(a, b) as sub
     from unnest($1::float8[], $2::float8[]) with ordinality as t(a, b, i) order by i`,
    [pairs.map(([a]) => exact(a)), pairs.map(([, b]) => exact(b))] as never[],
  );
  pairs.forEach(([a, b], i) => {
    const js = { mul: formulaMul(a, b), div: formulaDiv(a, b), add: formulaAdd(a, b), sub: formulaSub(a, b) };
    for (const op of ['mul', 'div', 'add', 'sub'] as const) {
      // -0 and 0 are one value to a reader: the text of both is 0.
      assert.ok(js[op] === rows[i][op], `${op}(${exact(a)}, ${exact(b)}): JavaScript ${js[op]}, SQL ${rows[i][op]}`);
    }
  });
});

it('a metric value is rounded and written alike: tidy and String in JavaScript, tidySql and js_number in SQL', async ({
  db,
}) => {
  // Past 2^53 an integer halfway between two shortest spellings may be spelt otherwise (formats/rendered.ts), and
  // past 1e302 the rounding's scaling overflows: no metric comes near either.
  const values = fc.sample(doubles, 3000).filter((x) => Math.abs(x) < 2 ** 53);
  const rows = await db.sql.unsafe<{ tidied: number | null; text: string; raw: string }[]>(
    `select ${tidySql('x')} as tidied, js_number(${tidySql('x')}) as text, js_number(x) as raw
     from unnest($1::float8[]) with ordinality as t(x, i) order by i`,
    [values.map(exact)] as never[],
  );
  values.forEach((x, i) => {
    assert.ok(tidy(x) === rows[i].tidied, `tidy(${exact(x)}): JavaScript ${tidy(x)}, SQL ${rows[i].tidied}`);
    assert.is(rows[i].text, String(tidy(x)), `js_number(tidied ${exact(x)})`);
    assert.is(rows[i].raw, String(x), `js_number(${exact(x)})`);
  });
});

it.run();
