// CSV records written from a binary COPY (src/report/formats/copyCsv.ts) are byte for byte the records csvRecord writes
// from the same rows' cells: the same file whichever path an export takes.
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DIMENSION_KEYS } from '../src/report/dimensions.ts';
import { writeTidied } from '../src/report/formats/asciiBytes.ts';
import { CopyCsv } from '../src/report/formats/copyCsv.ts';
import { copyStatement } from '../src/report/formats/copyStatement.ts';
import { csvRecord } from '../src/report/formats/csv.ts';
import { BASE_METRICS, writeMetrics, type MetricPlan, type Sums } from '../src/report/metrics.ts';
import { tidy } from '../src/report/numberRules.ts';
import { inlined } from '../src/store/queries.ts';
import { testApp, type TestApp } from './support/app.ts';
import { metricPlans } from './support/metricPlans.ts';
import { shape } from './support/shape.ts';

const it = suite<{ t: TestApp }>('CSV from binary COPY');
it.before(async (ctx) => {
  ctx.t = await testApp();
});
it.after(async (ctx) => ctx.t.close());

const decoder = new TextDecoder();
const tidied = (value: number | null) => {
  const out = new Uint8Array(32);
  return decoder.decode(out.subarray(0, writeTidied(value, out, 0)));
};

it('a number is written as String(tidy(number)), and nothing for null, NaN or Infinity', () => {
  const edges = [
    0,
    -0,
    1,
    -1,
    0.5e-6,
    1.5e-6,
    1e-7,
    0.0001,
    8999999999,
    9e9,
    -9e9,
    9e9 + 0.5,
    999999999.9999995,
    999999999.999999,
    1e15,
    2 ** 53,
    1e21,
    1e300,
    -3e-5,
    99999.99999950001,
    NaN,
    Infinity,
    -Infinity,
    // where the digits leave 32-bit integer arithmetic
    2 ** 31 - 1,
    2 ** 31,
    -(2 ** 31),
    2 ** 31 + 0.25,
    2147.483647,
    2147.483648,
    2147483647.999999,
    4294967295.5,
    999999999.999999 - 1e-6,
  ];
  for (const x of edges) assert.is(tidied(x), String(tidy(x) ?? ''), String(x));
  assert.is(tidied(null), '');
  fc.assert(
    fc.property(
      fc.oneof(
        fc.double(),
        fc.double({ min: -1e10, max: 1e10 }),
        fc.integer().map(Number),
        fc.integer({ min: -1e9, max: 1e9 }).map((k) => k / 1e6),
        fc.double({ min: 2 ** 30, max: 2 ** 33 }),
      ),
      (x) => {
        assert.is(tidied(x), String(tidy(x) ?? ''));
      },
    ),
    { numRuns: 20_000 },
  );
});

type Row = { creativeId: string | null; creativeName: string | null; campaignId: string | null } & Sums;
const KEYS = ['creativeId', 'creativeName', 'campaignId'] as const;
const SOURCE = `select * from jsonb_to_recordset($1::jsonb) as q("creativeId" uuid, "creativeName" text, "campaignId" uuid,
  ${BASE_METRICS.map((name) => `${name} float8`).join(', ')})`;

const name = fc.option(
  fc.string({
    unit: fc.constantFrom('a', 'Z', ' ', ',', '"', "'", '\n', '\r', '\t', '=', '+', '-', '@', 'é', '😀'),
    maxLength: 8,
  }),
  { freq: 8 },
);
const number = fc.oneof(
  fc.constantFrom(0, 1, 2.5, 1e-7, 0.0001, 123456789.123456),
  fc.integer({ min: 0, max: 10_000_000 }).map(Number),
  fc.double({ min: -1e11, max: 1e11, noNaN: true }),
);
const sum = fc.option(number, { freq: 20 });
const row = fc.record({
  creativeId: fc.option(fc.uuid(), { freq: 8 }),
  creativeName: name,
  campaignId: fc.option(fc.uuid(), { freq: 8 }),
  impressions: sum,
  clicks: sum,
  spend: sum,
  conversions: sum,
  conversion_value: sum,
  video_views: sum,
  video_completions: sum,
});
const metrics = metricPlans;

it('every record from a COPY, however its bytes are split, equals the record written from its cells', async ({ t }) => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(row, { maxLength: 12 }),
      metrics,
      fc.integer({ min: 1, max: 97 }),
      async (rows, plans, split) => {
        const held = await t.db.sql.unsafe<Row[]>(SOURCE, [rows as never]);
        const expected = held.map((r) => {
          const cells: unknown[] = KEYS.map((key) => r[key]);
          writeMetrics(r, plans, cells, KEYS.length);
          return csvRecord(cells, KEYS.length);
        });
        const source = SOURCE.replace('$1', `'${JSON.stringify(rows).replace(/'/g, "''")}'`);
        const copy = new CopyCsv(shape(KEYS, plans));
        let text = '';
        for await (const chunk of await t.db.sql.unsafe(copyStatement(source, shape(KEYS, plans), 'test')).readable()) {
          for (let p = 0; p < chunk.length; p += split) {
            copy.push(chunk.subarray(p, p + split));
            text += decoder.decode(copy.take(), { stream: true });
          }
        }
        assert.ok(copy.done, 'the trailer was read');
        assert.is(text, expected.join(''));
      },
    ),
    { numRuns: 100 },
  );
});

it('no dimensions: a record of the metrics only, and of nothing without metrics', async ({ t }) => {
  const source = 'select 2::float8 as impressions, 1::float8 as clicks, 0.5::float8 as spend';
  const plans = (names: string[]) => names.map((name): MetricPlan => ({ name, conversionDerived: false }));
  for (const [names, record] of [
    [['spend', 'ctr'], '0.5,50\r\n'],
    [[], '\r\n'],
  ] as const) {
    const copy = new CopyCsv(shape([], plans([...names])));
    let text = '';
    for await (const chunk of await t.db.sql
      .unsafe(copyStatement(source, shape(DIMENSION_KEYS.total, plans([...names])), 'test'))
      .readable()) {
      copy.push(chunk);
      text += decoder.decode(copy.take());
    }
    assert.is(text, record);
  }
});

it('parameters written into a query text, a comment included, read back as the same values', async ({ t }) => {
  await fc.assert(
    fc.asyncProperty(
      fc
        .string({
          unit: fc.oneof(
            fc.string({ unit: 'binary', maxLength: 1 }),
            fc.constantFrom("'", '\\', '\n', ':a', '::', '--', '*/', '"'),
          ),
        })
        .filter((s) => !s.includes('\0')),
      fc.array(fc.uuid(), { maxLength: 3 }),
      fc.boolean(),
      async (text, ids, flag) => {
        const [got] = await t.db.sql.unsafe(
          inlined(
            'select :a::text as a, :b::uuid[] as b, :c::boolean as c -- :a, in a comment\n',
            { a: text, b: ids, c: flag },
            [],
          ),
        );
        assert.equal([got.a, got.b, got.c], [text, ids, flag]);
      },
    ),
    { numRuns: 200 },
  );
});

it.run();
