// Filters, a summary row and a comparison range (docs/decisions.md §6), each checked against the service's own plain
// answers: a filtered answer is the plain one filtered, a summary the formulas over the summed rows, a comparison row
// the plain answer of the comparison range for the same keys; CSV and XLSX carry the same cells as the JSON.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { readSheet } from 'read-excel-file/node';
import { Readable } from 'node:stream';
import { DIMENSION_KEYS } from '../src/report/dimensions.ts';
import { BASE_METRICS, metricCatalogue, rowMetrics, type Sums } from '../src/report/metrics.ts';
import type { Grouping } from '../src/report/params.ts';
import { testApp, type TestApp } from './support/app.ts';
import { csvRecords } from './support/csv.ts';
import { bearer, createClient, createOrg, getToken } from './support/fixtures.ts';
import { fixtureReport, importCsv, HEADER } from './support/importFixture.ts';
import { propertyRuns } from './support/property.ts';

type Ctx = { t: TestApp; token: string; report: string; euros: string };
type Row = { dimensions: Record<string, string | null>; metrics: Record<string, number | null> };
type Numbers = Record<string, number | null>;

const it = suite<Ctx>('filters, summaries and comparisons');
const CUSTOM = [
  { name: 'per_view', formula: 'spend / video_views' },
  { name: 'engaged', formula: '(clicks + conversions) / impressions * 100' },
  { name: 'margin', formula: 'conversion_value - spend' },
  { name: 'completion', formula: 'video_completions / video_views' },
];

it.before(async (ctx) => {
  const t = (ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400', HEAVY_PER_CLIENT: '8' } }));
  const org = await createOrg(t.db.sql, { currency: 'USD' });
  const { report } = await fixtureReport(t, org);
  // More campaigns and creatives over the same days, and a CHF account without rates: its money is null.
  const out = await importCsv(
    t,
    org,
    [
      HEADER,
      '2026-01-06,linkedin-ads,L1,Franc,CHF,C9,Swiss brand,K9,Swiss image,image,700,7,70,1,10,0,0',
      '2026-02-10,linkedin-ads,L1,Franc,CHF,C9,Swiss brand,K9,Swiss image,image,300,3,30,0,0,0,0',
      '2026-01-05,google-ads,G1,Google US,USD,C4,Delta brand,K4,Delta text,text,2500,120,300,12,900,0,0',
      '2026-01-07,google-ads,G1,Google US,USD,C4,Delta brand,K5,Delta video,video,800,16,40,1,30,500,200',
      '2026-02-10,google-ads,G1,Google US,USD,C4,Delta brand,K4,Delta text,text,100,1,2,0,0,0,0',
    ].join('\n'),
  );
  assert.is(out.code, 0, out.stderr);
  const [chf] = await t.db.sql`select id from ad_accounts where organization_id = ${org} and currency = 'CHF'`;
  await t.db
    .sql`insert into report_ad_accounts (organization_id, report_id, ad_account_id) values (${org}, ${report}, ${chf.id})`;
  for (const { name, formula } of CUSTOM) {
    await t.db.sql`insert into custom_metrics (organization_id, name, display_name, kind, unit, formula)
      values (${org}, ${name}, ${name}, 'decimal', 'none', ${formula})`;
  }
  // The same report in EUR: every account's money converts the other way, CHF's still without a rate.
  const [euros] = await t.db.sql`insert into reports (organization_id, name, kind, currency, metrics, groupings)
    select organization_id, 'Fixture in EUR', kind, 'EUR', metrics, groupings from reports where id = ${report}
    returning id`;
  await t.db.sql`insert into report_ad_accounts (organization_id, report_id, ad_account_id)
    select organization_id, ${euros.id}, ad_account_id from report_ad_accounts where report_id = ${report}`;
  ctx.token = await getToken(t, await createClient(t.db.sql, org));
  ctx.report = report;
  ctx.euros = euros.id;
});
it.after(async (ctx) => ctx.t.close());

const METRICS = [
  'impressions',
  'clicks',
  'spend',
  'conversions',
  'cpa',
  'ctr',
  'cpc',
  'roas',
  'video_views',
  'per_view',
  // Nested: PostgreSQL computes it a level an operation (metrics.ts, formulaColumns), for filters as for rows.
  'engaged',
];
const DAYS = ['2026-01-05', '2026-01-06', '2026-01-07', '2026-02-10'];
const GROUPINGS: Grouping[] = ['total', 'campaign', 'month', 'ad-account', 'video', 'creative'];
const CATALOGUE = metricCatalogue(CUSTOM);

/** q's answer from the report of its currency (`currency=EUR`: the report in EUR; not sent). */
async function get(ctx: Ctx, what: string, q: URLSearchParams) {
  const query = new URLSearchParams(q);
  query.delete('currency');
  const report = q.get('currency') === 'EUR' ? ctx.euros : ctx.report;
  return ctx.t.fetch(`/v1/reports/${report}/${what}?${query}`, bearer(ctx.token));
}

async function data(ctx: Ctx, q: URLSearchParams) {
  const res = await get(ctx, 'data', q);
  const body = await res.json();
  assert.is(res.status, 200, `${q}: ${JSON.stringify(body)}`);
  return body;
}

const range = fc.tuple(fc.nat(3), fc.nat(3)).map(([a, b]) => [DAYS[Math.min(a, b)], DAYS[Math.max(a, b)]]);

type Filter = { field: string; op: string; value: string };

/** docs/decisions.md §6, as a client would apply it to the plain answer's rows. */
function holds(row: Row, { field, op, value }: Filter): boolean {
  if (field in row.metrics) {
    const n = row.metrics[field];
    if (n === null) return false;
    const v = Number(value);
    return { '==': n === v, '!=': n !== v, '>': n > v, '>=': n >= v, '<': n < v, '<=': n <= v }[op]!;
  }
  const text = row.dimensions[field];
  if (text === null || text === undefined) return false;
  const contains = text.toLowerCase().includes(value.toLowerCase());
  return { '==': text === value, '!=': text !== value, '=@': contains, '!@': !contains }[op]!;
}

const filters = (groupBy: Grouping, metrics: string[]) => {
  const metric = fc.record({
    field: fc.constantFrom(...metrics),
    op: fc.constantFrom('==', '!=', '>', '>=', '<', '<='),
    value: fc.constantFrom('0', '1', '50', '100.5', '1000', '-1', '2.5'),
  });
  const keys = DIMENSION_KEYS[groupBy];
  const dimension = keys.length
    ? fc.record({
        field: fc.constantFrom(...keys),
        op: fc.constantFrom('==', '!=', '=@', '!@'),
        value: fc.constantFrom('a', 'BRAND', 'Delta brand', 'google-ads', '2026-01', 'K4', 'zzz', ''),
      })
    : metric;
  return fc.array(fc.oneof(metric, dimension), { minLength: 1, maxLength: 3 });
};

it('a filtered answer is the plain answer filtered, over groupings, intervals and exports', async (ctx) => {
  const params = fc
    .record({
      groupBy: fc.constantFrom(...GROUPINGS),
      metrics: fc.subarray(METRICS, { minLength: 1 }),
      interval: fc.option(fc.constantFrom('day', 'week', 'month')),
      currency: fc.constantFrom('USD', 'EUR'),
      range,
    })
    .chain((p) => filters(p.groupBy, p.metrics).map((f) => ({ ...p, filters: f })));
  await fc.assert(
    fc.asyncProperty(params, async (p) => {
      const q = new URLSearchParams({ groupBy: p.groupBy, dateFrom: p.range[0], dateTo: p.range[1] });
      q.set('currency', p.currency);
      q.set('metrics', p.metrics.join(','));
      if (p.interval && p.groupBy !== 'month') q.set('interval', p.interval);
      const plain = await data(ctx, q);
      for (const f of p.filters) q.append('filter', `${f.field}${f.op}${f.value}`);
      const filtered = await data(ctx, q);
      const expected = plain.rows.filter((row: Row) => p.filters.every((f) => holds(row, f)));
      assert.equal(filtered.rows, expected, q.toString());
      await sameCells(ctx, q, filtered);
    }),
    propertyRuns(30, 8),
  );
});

/** The base sums of rows as a client adds them: money null where any row's is. */
function summed(rows: Numbers[]): Sums {
  const sums = {} as Record<string, number | null>;
  for (const name of BASE_METRICS) {
    const values = rows.map((row) => row[name]);
    sums[name] = values.some((v) => v === null) ? null : values.reduce<number>((a, b) => a + (b as number), 0);
  }
  return sums as Sums;
}

/** Equal to a millionth, relative: the service sums the exact values a client sees rounded to six decimals. */
function close(actual: Numbers, expected: Numbers, message: string) {
  for (const [name, value] of Object.entries(expected)) {
    const got = actual[name];
    if (value === null || got === null) assert.is(got, value, `${message}: ${name}`);
    else
      assert.ok(Math.abs(got - value) <= 1e-6 * Math.max(1, Math.abs(value)), `${message}: ${name} ${got} ≠ ${value}`);
  }
  assert.equal(Object.keys(actual), Object.keys(expected), message);
}

it('a summary is the formulas over the summed rows, never an average, in JSON, CSV and XLSX', async (ctx) => {
  const params = fc.record({
    groupBy: fc.constantFrom(...GROUPINGS),
    metrics: fc.subarray(METRICS, { minLength: 1 }),
    interval: fc.option(fc.constantFrom('day', 'week', 'month')),
    filter: fc.option(fc.constantFrom('impressions>600', 'spend>=0', 'ctr<4', 'margin<0')),
    currency: fc.constantFrom('USD', 'EUR'),
    range,
  });
  await fc.assert(
    fc.asyncProperty(params, async (p) => {
      const q = new URLSearchParams({ groupBy: p.groupBy, dateFrom: p.range[0], dateTo: p.range[1] });
      q.set('currency', p.currency);
      if (p.interval && p.groupBy !== 'month') q.set('interval', p.interval);
      q.set('metrics', [...BASE_METRICS, 'ctr', 'margin'].join(','));
      if (p.filter) q.append('filter', p.filter);
      const sums = summed((await data(ctx, q)).rows.map((row: Row) => row.metrics));
      // A metric filter names a metric the answer returns (docs/decisions.md §6).
      const metrics = p.filter ? [...new Set([...p.metrics, /^[a-z_]+/.exec(p.filter)![0]])] : p.metrics;
      q.set('metrics', metrics.join(','));
      q.set('summary', 'true');
      const answer = await data(ctx, q);
      const plans = metrics.map((name) => CATALOGUE.get(name)!);
      close(answer.summary.metrics, rowMetrics(sums, plans), `${q}: ${JSON.stringify(answer)}`);
      await sameCells(ctx, q, answer);
    }),
    propertyRuns(30, 8),
  );
});

/** The metrics of a range without the row's facts: zero counts and money, null ratios (docs/decisions.md §6). */
const nothing = (metrics: string[]) =>
  rowMetrics(
    Object.fromEntries(BASE_METRICS.map((name) => [name, 0])) as Sums,
    metrics.map((name) => CATALOGUE.get(name)!),
  );

/** A row's identity across ranges: its grouping's id (docs/decisions.md §6). */
const ID: Record<Grouping, string | null> = {
  total: null,
  campaign: 'campaignId',
  segment: 'segmentId',
  month: 'month',
  'ad-account': 'adAccountId',
  video: 'creativeId',
  creative: 'creativeId',
};

it('a comparison row is the plain answer of the comparison range for the same keys', async (ctx) => {
  const params = fc.record({
    groupBy: fc.constantFrom(...GROUPINGS),
    metrics: fc.subarray(METRICS, { minLength: 1 }),
    range,
    compare: range,
    currency: fc.constantFrom('USD', 'EUR'),
    summary: fc.boolean(),
    sort: fc.boolean(),
  });
  await fc.assert(
    fc.asyncProperty(params, async (p) => {
      const plainOf = async ([from, to]: string[]) =>
        data(
          ctx,
          new URLSearchParams({
            groupBy: p.groupBy,
            dateFrom: from,
            dateTo: to,
            metrics: p.metrics.join(','),
            currency: p.currency,
          }),
        );
      const [main, other] = [await plainOf(p.range), await plainOf(p.compare)];
      const q = new URLSearchParams({ groupBy: p.groupBy, dateFrom: p.range[0], dateTo: p.range[1] });
      q.set('currency', p.currency);
      q.set('metrics', p.metrics.join(','));
      q.set('compareFrom', p.compare[0]);
      q.set('compareTo', p.compare[1]);
      if (p.summary) q.set('summary', 'true');
      const sorted = p.sort && ['campaign', 'video', 'creative'].includes(p.groupBy);
      if (sorted) q.set('sort', p.metrics[0]);
      const answer = await data(ctx, q);
      assert.is(answer.compareFrom, p.compare[0]);
      assert.is(answer.compareTo, p.compare[1]);
      const id = ID[p.groupBy];
      const key = (row: Row) => (id === null ? '' : row.dimensions[id]);
      const mains = new Map(main.rows.map((row: Row) => [key(row), row]));
      const others = new Map(other.rows.map((row: Row) => [key(row), row]));
      const keys = new Set([...mains.keys(), ...others.keys()]);
      assert.is(answer.rows.length, keys.size, `${q}: rows of either range`);
      const zero = nothing(p.metrics);
      for (const row of answer.rows as (Row & { compare: { metrics: Numbers } })[]) {
        const [m, c] = [mains.get(key(row)) as Row | undefined, others.get(key(row)) as Row | undefined];
        assert.equal(row.dimensions, (m ?? c)!.dimensions, q.toString());
        assert.equal(row.metrics, m?.metrics ?? zero, `${q}: main range of ${key(row)}`);
        assert.equal(
          row.compare.metrics,
          c?.metrics ?? zero,
          `${q}: comparison range of ${key(row)}: ${JSON.stringify([answer.rows, other.rows])}`,
        );
      }
      // The main range's rows keep their order among themselves (by name, or sorted by the main range's numbers).
      const order = answer.rows.filter((row: Row) => mains.has(key(row))).map(key);
      if (!sorted) assert.equal(order, main.rows.map(key), `${q}: order`);
      await sameCells(ctx, q, answer);
    }),
    propertyRuns(30, 8),
  );
});

type Answer = {
  metrics: string[];
  rows: (Row & { compare?: { metrics: Numbers } })[];
  summary?: { metrics: Numbers; compare?: { metrics: Numbers } };
};

/** The CSV and XLSX exports of q hold the JSON answer's cells: rows, comparison columns, the Total row. */
async function sameCells(ctx: Ctx, q: URLSearchParams, answer: Answer) {
  const interval = q.get('interval');
  const keys = [...(interval ? [interval] : []), ...DIMENSION_KEYS[q.get('groupBy') as Grouping]];
  const compared = q.has('compareFrom');
  const numbers = (m: Numbers, c?: Numbers) => [
    ...answer.metrics.map((name) => m[name]),
    ...(compared ? answer.metrics.map((name) => c![name]) : []),
  ];
  const expected: unknown[][] = answer.rows.map((row) => [
    ...keys.map((key) => row.dimensions[key]),
    ...numbers(row.metrics, row.compare?.metrics),
  ]);
  if (answer.summary) {
    const total = keys.map((_, i) => (i === 0 ? 'Total' : null));
    expected.push([...total, ...numbers(answer.summary.metrics, answer.summary.compare?.metrics)]);
  }
  const csv = csvRecords(await (await get(ctx, 'export.csv', q)).text());
  const header = [...keys, ...answer.metrics, ...(compared ? answer.metrics.map((m) => `${m}_compare`) : [])];
  assert.equal(csv[0], header, `${q}: CSV header`);
  const cells = csv
    .slice(1)
    .map((record) => record.map((cell, i) => (i < keys.length ? cell || null : cell === '' ? null : Number(cell))));
  assert.equal(cells, expected, `${q}: CSV`);

  const sheet = await readSheet(Readable.from(Buffer.from(await (await get(ctx, 'export.xlsx', q)).arrayBuffer())));
  const width = header.length;
  const rows = sheet.slice(1).map((row) => {
    const out: unknown[] = row.map((v) => (v === undefined ? null : v));
    while (out.length < width) out.push(null);
    return out;
  });
  // A row whose every cell is empty is kept in the file, but the reader leaves such rows out at the end.
  while (rows.length < expected.length && expected[rows.length].every((v) => v === null))
    rows.push(expected[rows.length]);
  assert.equal(rows, expected, `${q}: XLSX`);
  if (compared) assert.ok(String(sheet[0][keys.length + answer.metrics.length]).endsWith(' (compare)'), `${q}: XLSX`);
}

it('a summary of an answer with no ad account is zeros, and null ratios', async (ctx) => {
  const q = new URLSearchParams({ groupBy: 'campaign', dateFrom: DAYS[0], dateTo: DAYS[3], summary: 'true' });
  q.set('adAccountIds', '00000000-0000-4000-8000-000000000000');
  q.set('metrics', 'impressions,spend,ctr');
  const answer = await data(ctx, q);
  assert.equal(answer.rows, []);
  assert.equal(answer.summary, { metrics: { impressions: 0, spend: 0, ctr: null } });
  await sameCells(ctx, q, answer);
});

it('money that cannot be converted makes the summary money null, never a partial sum', async (ctx) => {
  const q = new URLSearchParams({ groupBy: 'ad-account', dateFrom: DAYS[0], dateTo: DAYS[3], summary: 'true' });
  q.set('metrics', 'impressions,spend,cpc');
  const answer = await data(ctx, q);
  assert.ok(answer.rows.some((row: Row) => row.metrics.spend === null));
  assert.equal(answer.summary.metrics.spend, null);
  assert.equal(answer.summary.metrics.cpc, null);
  assert.is(answer.summary.metrics.impressions, 11900);
});

const refused: [string, string, RegExp][] = [
  ['a field the rows lack', 'filter=creativeName=@x', /filter creativeName=@x: .*neither a dimension/],
  ['a field in the wrong case', 'filter=Spend>1', /did you mean spend\?/],
  ['a mistyped operator', 'filter=spend=>1', /filter spend=>1: => .* is not an operator/],
  ['a single =', 'filter=spend=1', /not an operator/],
  ['a metric operator on a dimension', 'filter=campaignName>1', /> does not apply to the dimension campaignName/],
  ['a dimension operator on a metric', 'filter=spend=@1', /=@ does not apply to the metric spend/],
  ['a value that is no number', 'filter=spend>lots', /"lots" is not a decimal number/],
  [
    'a metric the answer does not return',
    'filter=roas>1&metrics=spend',
    /filter roas>1: roas is a metric this answer does not return; add it to metrics/,
  ],
  ['no field', 'filter=>1', /must start with a field name/],
  ['eleven filters', `${'filter=spend>0&'.repeat(11)}x=1`, /at most 10/],
  ['the period key', 'filter=day==2026-01-05&interval=day', /period key day/],
  ['compareFrom alone', 'compareFrom=2026-01-01', /give both, or neither/],
  ['a comparison range backwards', 'compareFrom=2026-01-05&compareTo=2026-01-01', /compareFrom .* is after compareTo/],
  ['a comparison with an interval', 'compareFrom=2026-01-01&compareTo=2026-01-02&interval=day', /interval/],
  ['summary=yes', 'summary=yes', /summary must be true or false/],
];
for (const [what, query, detail] of refused) {
  it(`400 invalid-parameter naming the problem: ${what}`, async (ctx) => {
    const res = await ctx.t.fetch(
      `/v1/reports/${ctx.report}/data?groupBy=campaign&dateFrom=${DAYS[0]}&dateTo=${DAYS[3]}&${query.replace('&x=1', '')}`,
      bearer(ctx.token),
    );
    const body = await res.json();
    assert.is(res.status, 400, JSON.stringify(body));
    assert.ok(body.type.endsWith('/invalid-parameter'), body.type);
    assert.match(body.detail, detail);
  });
}

it('a filter value is bound, never spliced: quotes and SQL in it are only text', async (ctx) => {
  const q = new URLSearchParams({ groupBy: 'campaign', dateFrom: DAYS[0], dateTo: DAYS[3], metrics: 'impressions' });
  q.append('filter', "campaignName=@'); drop table facts; --");
  const answer = await data(ctx, q);
  assert.equal(answer.rows, []);
  assert.is((await get(ctx, 'export.csv', q)).status, 200);
});

it('a conversion metric the plan lacks is named as such in a filter', async (ctx) => {
  // docs/decisions.md §3: business has the public API without conversion metrics.
  const org = await createOrg(ctx.t.db.sql, { currency: 'USD', plan: 'business', name: 'Business' });
  const { report } = await fixtureReport(ctx.t, org);
  const token = await getToken(ctx.t, await createClient(ctx.t.db.sql, org));
  const res = await ctx.t.fetch(
    `/v1/reports/${report}/data?groupBy=campaign&dateFrom=${DAYS[0]}&dateTo=${DAYS[3]}&filter=cpa>1`,
    bearer(token),
  );
  assert.is(res.status, 400);
  assert.match((await res.json()).detail, /cpa is not among your plan's metrics/);
});

it('a comparison costs twice the data; an export of one twice that', async (ctx) => {
  const base = `groupBy=campaign&dateFrom=${DAYS[0]}&dateTo=${DAYS[1]}`;
  const remaining = (res: Response) => Number(/r=(\d+)/.exec(res.headers.get('ratelimit')!)![1]);
  const spent = async (path: string) => {
    const before = remaining(await ctx.t.fetch(`/v1/reports/${ctx.report}`, bearer(ctx.token)));
    await (await ctx.t.fetch(`/v1/reports/${ctx.report}/${path}`, bearer(ctx.token))).arrayBuffer();
    return before - 1 - remaining(await ctx.t.fetch(`/v1/reports/${ctx.report}`, bearer(ctx.token)));
  };
  const plain = await spent(`data?${base}`);
  const compare = `&compareFrom=${DAYS[2]}&compareTo=${DAYS[3]}`;
  assert.is(await spent(`data?${base}${compare}`), 2 * plain);
  assert.is(await spent(`export.csv?${base}${compare}`), 4 * plain);
  assert.is(await spent(`data?${base}&summary=true&filter=spend>1`), plain);
});

it('the ETag covers filters, summary and the comparison range', async (ctx) => {
  const base = `/v1/reports/${ctx.report}/data?groupBy=campaign&dateFrom=${DAYS[0]}&dateTo=${DAYS[3]}`;
  const etag = async (q: string) => (await ctx.t.fetch(`${base}${q}`, bearer(ctx.token))).headers.get('etag');
  const tags = [
    await etag(''),
    await etag('&filter=spend>1'),
    await etag('&filter=spend>2'),
    await etag('&summary=true'),
    await etag(`&compareFrom=${DAYS[0]}&compareTo=${DAYS[1]}`),
    await etag(`&compareFrom=${DAYS[0]}&compareTo=${DAYS[2]}`),
  ];
  assert.is(new Set(tags).size, tags.length, JSON.stringify(tags));
  const again = await ctx.t.fetch(`${base}&filter=spend>1`, {
    headers: { authorization: `Bearer ${ctx.token}`, 'if-none-match': tags[1]! },
  });
  assert.is(again.status, 304);
});

it.run();
