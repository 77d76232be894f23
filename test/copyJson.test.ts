// The data endpoint's JSON rows written from a binary COPY (src/report/formats/copyJson.ts) are byte for byte what
// JSON.stringify writes of the rows built from the same cells, comparison range and summary included.
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CopyJson } from '../src/report/formats/copyJson.ts';
import { copyStatement } from '../src/report/formats/copyStatement.ts';
import {
  BASE_METRICS,
  COMPARED,
  comparedSums,
  rowMetrics,
  type MetricPlan,
  type RowShape,
  type Sums,
} from '../src/report/metrics.ts';
import { testApp, type TestApp } from './support/app.ts';
import { metricPlans } from './support/metricPlans.ts';

const it = suite<{ t: TestApp }>('JSON rows from binary COPY');
it.before(async (ctx) => {
  ctx.t = await testApp();
});
it.after(async (ctx) => ctx.t.close());

const decoder = new TextDecoder();

type Row = {
  creativeId: string | null;
  creativeName: string | null;
  campaignId: string | null;
  _total: boolean;
} & Sums;
const KEYS = ['creativeId', 'creativeName', 'campaignId'] as const;
const SUMS = [...BASE_METRICS, ...BASE_METRICS.map((name) => COMPARED + name)];
const SOURCE = `select * from jsonb_to_recordset($1::jsonb) as q("creativeId" uuid, "creativeName" text, "campaignId" uuid,
  ${SUMS.map((name) => `${name} float8`).join(', ')}, _total boolean)`;

// Every character JSON.stringify escapes, and some it does not (DEL, U+2028, non-ASCII, astral).
const name = fc.option(
  fc.string({
    unit: fc.constantFrom(
      'a',
      'Z',
      ' ',
      '"',
      '\\',
      '/',
      '\n',
      '\r',
      '\t',
      '\b',
      '\f',
      '\x01',
      '\x1f',
      '\x7f',
      'é',
      '\u2028',
      '😀',
    ),
    maxLength: 8,
  }),
  { freq: 8 },
);
const number = fc.oneof(
  fc.constantFrom(0, 1, 2.5, 1e-7, 0.0001, 123456789.123456),
  fc.integer({ min: 0, max: 10_000_000 }).map(Number),
  // No tiny doubles: a ratio of them over the comparison range, computed by PostgreSQL, would overflow (an error).
  fc.double({ min: -1e11, max: 1e11, noNaN: true }).map((x) => (Math.abs(x) < 1e-200 ? 0 : x)),
);
const sum = fc.option(number, { freq: 20 });
const row = fc.record({
  creativeId: fc.option(fc.uuid(), { freq: 8 }),
  creativeName: name,
  campaignId: fc.option(fc.uuid(), { freq: 8 }),
  ...Object.fromEntries(SUMS.map((name) => [name, sum])),
}) as fc.Arbitrary<Omit<Row, '_total'>>;
const metrics = metricPlans;

/** What the data endpoint builds from a row's cells, and its summary's object (docs/decisions.md §6). */
function built(rows: Row[], shape: RowShape): string {
  const numbers = (r: Row) => ({
    metrics: rowMetrics(r, shape.metrics),
    ...(shape.compared ? { compare: { metrics: rowMetrics(comparedSums(r), shape.metrics) } } : {}),
  });
  const plain = rows.filter((r) => !r._total);
  const text = plain
    .map((r) =>
      JSON.stringify({ dimensions: Object.fromEntries(shape.keys.map((k) => [k, r[k as never]])), ...numbers(r) }),
    )
    .join(',');
  const total = rows.find((r) => r._total);
  return total ? `${text}],"summary":${JSON.stringify(numbers(total))}` : text;
}

async function written(t: TestApp, rows: Row[], shape: RowShape, split: number): Promise<string> {
  const source = SOURCE.replace('$1', `'${JSON.stringify(rows).replace(/'/g, "''")}'`);
  const copy = new CopyJson(shape);
  let text = '';
  for await (const chunk of await t.db.sql.unsafe(copyStatement(source, shape, 'test')).readable()) {
    for (let p = 0; p < chunk.length; p += split) {
      copy.push(chunk.subarray(p, p + split));
      text += decoder.decode(copy.take(), { stream: true });
    }
  }
  assert.ok(copy.done, 'the trailer was read');
  assert.is(copy.rows, rows.length);
  return text;
}

it('every row from a COPY, however its bytes are split, is the JSON of the row built from its cells', async ({ t }) => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(row, { maxLength: 12 }),
      metrics,
      fc.boolean(),
      fc.boolean(),
      fc.integer({ min: 1, max: 97 }),
      async (cells, plans, compared, summary, split) => {
        const rows = cells.map((r, i): Row => ({ ...r, _total: summary && i === cells.length - 1 }));
        const shape: RowShape = { keys: KEYS, metrics: plans, compared, summary };
        const text = await written(t, rows, shape, split);
        assert.is(text, built(rows, shape));
        // And as the answer holds it, it parses.
        JSON.parse(`{"rows":[${text}${summary && rows.length ? '' : ']'}}`);
      },
    ),
    { numRuns: 150 },
  );
});

it('no dimensions: the total grouping has an empty dimensions object', async ({ t }) => {
  const plans = ['spend', 'ctr'].map((name): MetricPlan => ({ name, conversionDerived: false }));
  const shape: RowShape = { keys: [], metrics: plans, compared: false, summary: false };
  const source = `select 2::float8 as impressions, 1::float8 as clicks, 0.5::float8 as spend`;
  const copy = new CopyJson(shape);
  let text = '';
  for await (const chunk of await t.db.sql.unsafe(copyStatement(source, shape, 'test')).readable()) {
    copy.push(chunk);
    text += decoder.decode(copy.take());
  }
  assert.is(text, '{"dimensions":{},"metrics":{"spend":0.5,"ctr":50}}');
});

it.run();
