// Export rows rendered by PostgreSQL (src/report/formats/rendered.ts) are byte for byte the rows the server writes from
// cells (exportFormats.ts), but for one spelling: the same file whichever path an export takes.
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DIMENSION_KEYS } from '../src/report/dimensions.ts';
import { cellStyles } from '../src/report/formats/sheetLayout.ts';
import { BASE_METRICS, SYSTEM_METRICS, writeMetrics, type MetricPlan, type Sums } from '../src/report/metrics.ts';
import { renderedQuery } from '../src/report/formats/rendered.ts';
import type { Formula } from '../src/report/formula.ts';
import { sheetRow } from '../src/report/formats/sheetRow.ts';
import { testApp, type TestApp } from './support/app.ts';
import { shape } from './support/shape.ts';

const it = suite<{ t: TestApp }>('export rows rendered by PostgreSQL');
it.before(async (ctx) => {
  ctx.t = await testApp();
});
it.after(async (ctx) => ctx.t.close());

type Row = { creativeId: string | null; creativeName: string | null; campaignId: string | null } & Sums;
const KEYS = ['creativeId', 'creativeName', 'campaignId'] as const;

/** The creative grouping's columns from JSON: the shape a grouping's query gives renderedQuery (its ids uuids). */
const SOURCE = `select * from jsonb_to_recordset($1::jsonb) as q("creativeId" uuid, "creativeName" text, "campaignId" uuid,
  ${BASE_METRICS.map((name) => `${name} float8`).join(', ')})`;

/**
 * A worksheet's numbers spelt as JavaScript spells the doubles they name. An integer-valued double past 2^53 whose
 * shortest digits sit halfway between it and a neighbour is spelt exactly by PostgreSQL (-23548559584922432) and
 * in its shortest digits by JavaScript (-23548559584922430): two spellings of one double, which a spreadsheet reads
 * as the same number. Everything else must match byte for byte.
 */
const sameDoubles = (lines: string[]) =>
  lines.map((line) => line.replace(/<v>([^<]*)<\/v>/g, (_, v: string) => `<v>${String(Number(v))}</v>`));

/**
 * Both renderings of rows, from the same doubles: the server's from the rows as PostgreSQL holds them and sends
 * them (as the data endpoint reads its sums), PostgreSQL's from its own. (Sent in, a number is parsed by the
 * database's strtod, which on the embedded database can land one double away from JavaScript's.)
 */
async function both(t: TestApp, input: Row[], metrics: MetricPlan[]) {
  const held = await t.db.sql.unsafe<Row[]>(SOURCE, [input as never]);
  const rendered = await t.db.sql.unsafe<{ line: string }[]>(renderedQuery(SOURCE, shape(KEYS, metrics)), [
    input as never,
  ]);
  const fromCells = held.map((row, i) => {
    const cells: unknown[] = KEYS.map((key) => row[key]);
    writeMetrics(row, metrics, cells, KEYS.length);
    // Data rows follow the header: row 2 onwards in a sheet.
    return sheetRow(
      i + 1,
      cells,
      cellStyles(
        KEYS.length,
        metrics.map((metric) => metric.kind),
      ),
    );
  });
  return { sql: rendered.map((r) => r.line), cells: fromCells };
}

// Names with everything CSV, XML and spreadsheets treat specially, and characters XML cannot hold.
const name = fc.option(
  fc.string({
    unit: fc.constantFrom(
      'a',
      'Z',
      ' ',
      ',',
      '"',
      "'",
      '\n',
      '\r',
      '\t',
      '=',
      '+',
      '-',
      '@',
      '&',
      '<',
      '>',
      '\x01',
      '\x1f',
      '\ufffe',
      '\uffff',
      'é',
      '😀',
    ),
    maxLength: 8,
  }),
  { freq: 8 },
);
// Numbers around every place where the two languages write them differently (below 1e-6, 1e-4, ties, negative zero).
// Below 1e15: beyond it, PostgreSQL's shortest digits for a double can differ from JavaScript's in the last place
// (9.999999999999999e+22 for 1e+23), the same double either way, which the test of the edges below checks.
const number = fc
  .oneof(
    fc.constantFrom(
      0,
      -0,
      1,
      2.5,
      0.5e-6,
      1.5e-6,
      1e-7,
      1.25e-5,
      0.0001,
      99999.99999950001,
      123456789.123456,
      999999999.9999995,
      -3e-5,
    ),
    fc.integer({ min: 0, max: 10_000_000 }).map(Number),
    fc.double({ min: -1e11, max: 1e11, noNaN: true }),
    fc.double({ min: 1e-9, max: 1e-3, noNaN: true }),
  )
  .filter((x) => x === 0 || Math.abs(x) >= 1e-12);
// A denominator is zero or at least one: money and counts (a ratio past double precision's range raises an error in
// PostgreSQL where JavaScript reaches Infinity; metrics.ts).
const denominator = fc.oneof(
  number.filter((x) => x === 0 || Math.abs(x) >= 1),
  fc.constant(0),
);
// Ids are uuids, written as they are; every other key is text, and the name stands for them all.
const id = fc.option(fc.uuid(), { freq: 8 });
const row = fc.record({
  creativeId: id,
  creativeName: name,
  campaignId: id,
  impressions: denominator,
  clicks: denominator,
  spend: denominator,
  conversions: denominator,
  conversion_value: number,
  video_views: denominator,
  video_completions: number,
});
// Custom metrics: formulas over system metrics and numbers, with numbers past where a double overflows or underflows
// to zero (PostgreSQL raises an error for both, formula.ts), so both sides must take the same guards.
const { formula } = fc.letrec<{ formula: Formula }>((tie) => ({
  formula: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...Object.keys(SYSTEM_METRICS), '__invalid__').map((name): Formula => ({ op: 'ref', name })),
    fc
      .oneof(number, fc.constantFrom(0, 1e-200, 1e-305, 1e150, 1e299, 1e300, 1.0000000000000002e300, 1e301, 1e306))
      .map((value): Formula => ({ op: 'num', value: Math.abs(value) })),
    tie('formula').map((arg): Formula => ({ op: 'neg', arg })),
    fc.record({
      op: fc.constantFrom('+', '-', '*', '/'),
      left: tie('formula'),
      right: tie('formula'),
    }) as fc.Arbitrary<Formula>,
  ),
}));
const system = fc
  .shuffledSubarray(Object.keys(SYSTEM_METRICS))
  .map((names) => names.map((n): MetricPlan => ({ name: n, conversionDerived: false, kind: SYSTEM_METRICS[n].kind })));
const custom = fc
  .array(formula, { maxLength: 3 })
  .map((formulas) =>
    formulas.map(
      (f, i): MetricPlan => ({ name: `custom_${i}`, conversionDerived: false, formula: f, kind: 'decimal' }),
    ),
  );
const metrics = fc.tuple(system, custom).map(([a, b]) => [...a, ...b]);

it('xlsx: every row as PostgreSQL renders it equals the row written from its cells', async ({ t }) => {
  await fc.assert(
    fc.asyncProperty(fc.array(row, { maxLength: 12 }), metrics, async (rows, plans) => {
      const { sql, cells } = await both(t, rows, plans);
      assert.equal(sameDoubles(sql), sameDoubles(cells));
    }),
    { numRuns: 150 },
  );
});

const ID = '00000000-0000-4000-8000-000000000000';

it('custom formulas where a double overflows or underflows to zero: the same value (or null) from both, never an error', async ({
  t,
}) => {
  const num = (value: number): Formula => ({ op: 'num', value });
  const op = (o: '+' | '-' | '*' | '/', left: Formula, right: Formula): Formula => ({ op: o, left, right });
  const spend: Formula = { op: 'ref', name: 'spend' };
  const formulas = [
    op('*', num(1e200), num(1e200)),
    op('*', num(1e-200), num(1e-200)),
    op('*', { op: 'neg', arg: num(1e-200) }, num(1e-200)),
    op('/', num(1e200), num(1e-200)),
    op('/', num(1e-200), num(1e200)),
    op('+', op('*', num(1e150), num(1e150)), num(1e300)),
    op('-', num(1e301), spend),
    op('*', spend, num(1e306)),
    op('/', spend, num(0)),
    op('*', num(0), num(1e306)),
  ];
  const plans = formulas.map(
    (formula, i): MetricPlan => ({ name: `edge_${i}`, conversionDerived: false, formula, kind: 'decimal' }),
  );
  const rows = [2.5, 1e-9, 0].map(
    (value): Row => ({
      creativeId: ID,
      creativeName: 'x',
      campaignId: ID,
      impressions: 1,
      clicks: 1,
      spend: value,
      conversions: 1,
      conversion_value: 0,
      video_views: 0,
      video_completions: 0,
    }),
  );
  const { sql, cells } = await both(t, rows, plans);
  assert.equal(sameDoubles(sql), sameDoubles(cells));
});

it('a nested custom formula is computed a level at a time: PostgreSQL inlines every operation, none is a call a row', async ({
  t,
}) => {
  // (clicks + video_views) / impressions * 100 and, nested deeper, ctr / (cpc - 1): nested in one expression, an
  // operation whose argument is another's was a SQL function call a row (and so was js_round over it).
  const ref = (name: string): Formula => ({ op: 'ref', name });
  const op = (o: '+' | '-' | '*' | '/', left: Formula, right: Formula): Formula => ({ op: o, left, right });
  const engagement = op('*', op('/', op('+', ref('clicks'), ref('video_views')), ref('impressions')), {
    op: 'num',
    value: 100,
  });
  const nested = op('/', ref('ctr'), op('-', ref('cpc'), { op: 'neg', arg: op('*', ref('spend'), ref('clicks')) }));
  const plans = [engagement, nested].map(
    (formula, i): MetricPlan => ({ name: `custom_${i}`, conversionDerived: false, formula, kind: 'decimal' }),
  );
  const explained = await t.db.sql.unsafe(`explain (verbose) ${renderedQuery(SOURCE, shape(KEYS, plans))}`, [
    '[]' as never,
  ]);
  const text = explained.map((row) => Object.values(row)[0]).join('\n');
  assert.match(text, /CASE/, "the plan's expressions shown");
  assert.not.match(text, /formula_|js_round/, 'every function inlined');
});

it('a uuid key given text that is not a uuid fails, rather than being written unescaped', async ({ t }) => {
  const source = `select '=cmd|x' as "creativeId", 'n' as "creativeName", null::uuid as "campaignId", ${BASE_METRICS.map((name) => `0::float8 as ${name}`).join(', ')}`;
  await t.db.sql.unsafe(renderedQuery(source, shape(KEYS, []))).then(
    () => assert.unreachable('rendered'),
    (error) => assert.match(String(error.message), /uuid/),
  );
});

it('numbers at the edges of both notations: the same text, or past 1e15 the same double', async ({ t }) => {
  const values = [
    0,
    -0,
    1e-7,
    1.5e-7,
    1e-6,
    1.25e-5,
    0.0001,
    0.5,
    1e14,
    999999999999999.9,
    1e15,
    1.5e15,
    1234567890123456,
    2 ** 53 + 2,
    1e20,
    1e21,
    1.5e21,
    1e23,
    1e100,
    -1e-5,
    -1e21,
  ];
  const rows = values.map(
    (spend): Row => ({
      creativeId: ID,
      creativeName: 'x',
      campaignId: ID,
      impressions: 1,
      clicks: 1,
      spend,
      conversions: 1,
      conversion_value: 0,
      video_views: 0,
      video_completions: 0,
    }),
  );
  const { sql, cells } = await both(t, rows, [{ name: 'spend', conversionDerived: false }]);
  sql.forEach((line, i) => {
    const [ours, theirs] = [line, cells[i]].map((l) => /<v>([^<]*)<\/v>/.exec(l)![1]);
    if (Math.abs(Number(theirs)) < 1e15) assert.is(ours, theirs);
    else assert.is(Number(ours), Number(theirs), `${ours} and ${theirs}`);
  });
});

it('no dimensions and no metrics: an empty worksheet row', async ({ t }) => {
  const text = renderedQuery('select 1 as impressions', shape(DIMENSION_KEYS.total, []));
  const lines = (await t.db.sql.unsafe<{ line: string }[]>(text)).map((r) => r.line);
  assert.equal(lines, ['<row r="2"></row>']);
});

it.run();
