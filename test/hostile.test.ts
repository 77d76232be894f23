// Hostile input, property-based: whatever arrives, the answer is a documented 4xx (or a 2xx), never a 500 or a hang.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { PROBLEM_TYPES } from '../src/http/problem.ts';
import { testApp, type TestApp } from './support/app.ts';
import { seedDemo, type DemoIds } from './support/demo.ts';
import { propertyRuns } from './support/property.ts';

type Ctx = { t: TestApp; d: DemoIds; paths: string[] };
const it = suite<Ctx>('hostile input');
it.before(async (ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400', REQUEST_DEADLINE_MS: '5000' }, demo: true });
  ctx.d = await seedDemo(ctx.t);
  await ctx.t.db.sql`update subscriptions set budget_override = 100000000`;
  const { d } = ctx;
  const report = d.reports['Cross-channel performance'];
  ctx.paths = [
    '/v1/health',
    '/v1/openapi.json',
    '/v1/docs',
    '/v1/me',
    '/v1/organizations',
    `/v1/organizations/${d.org}`,
    `/v1/organizations/${d.org}/ad-accounts`,
    `/v1/organizations/${d.org}/segments`,
    `/v1/organizations/${d.org}/campaigns`,
    `/v1/organizations/${d.org}/metrics`,
    '/v1/metrics',
    '/v1/reports',
    `/v1/reports/${report}`,
    `/v1/reports/${report}/data`,
    `/v1/reports/${report}/export.csv`,
    `/v1/reports/${report}/export.xlsx`,
  ];
});
it.after(async (ctx) => ctx.t.close());

const KNOWN = [
  'page',
  'pageSize',
  'platform',
  'adAccountId',
  'name',
  'organizationId',
  'dateFrom',
  'dateTo',
  'groupBy',
  'metrics',
  'adAccountIds',
  'segmentIds',
  'sort',
  'sortDesc',
  'nameFilter',
  'filter',
  'summary',
  'compareFrom',
  'compareTo',
];
const BOUNDARY = [
  '',
  '0',
  '-1',
  '1',
  '200',
  '201',
  '1e3',
  '9'.repeat(30),
  'NaN',
  'null',
  'true',
  '2025-02-30',
  '2026-01-01',
  '0000-00-00',
  'total',
  'campaign',
  'segment',
  ' ',
  '%',
  '\u0000',
  '💥',
  "'; drop table facts; --",
  '00000000-0000-0000-0000-000000000000',
];
const value = fc.oneof(
  fc.constantFrom(...BOUNDARY),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.integer().map(String),
);
const key = fc.oneof(fc.constantFrom(...KNOWN), fc.string({ maxLength: 12 }));
const params = fc.array(fc.tuple(key, value), { maxLength: 8 });

/** FUZZ_RUNS=5000 npm test -- hostile digs deeper than CI's default run count (test/support/property.ts). */
const runs = (ci: number) => propertyRuns(ci, ci).numRuns;

const types = new Set(Object.keys(PROBLEM_TYPES));

/** A documented answer: a success, a 304, or a 4xx problem document of a known type. */
async function expectDocumented(res: Response, what: string) {
  assert.ok(res.status < 500, `${what} → ${res.status}: ${await res.clone().text()}`);
  if (res.status >= 400) {
    assert.is(res.headers.get('content-type'), 'application/problem+json', what);
    const body = await res.json();
    assert.ok(types.has(body.type.split('/').pop()), `${what}: unknown type ${body.type}`);
    assert.is(body.status, res.status);
  } else {
    await res.arrayBuffer();
  }
}

it('random and boundary query parameters, repeated or not, on every path', async ({ t, d, paths }) => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...paths), params, async (path, pairs) => {
      const query = new URLSearchParams(pairs).toString();
      await expectDocumented(
        await t.fetch(`${path}?${query}`, { headers: { authorization: `Bearer ${d.token}` } }),
        `${path}?${query}`,
      );
    }),
    { numRuns: runs(300) },
  );
});

it('any date outside 2000-01-01..2100-12-31 or not a day is a 400 naming it, before any charge, on data and exports', async ({
  t,
  d,
}) => {
  const report = d.reports['Cross-channel performance'];
  const day = fc.tuple(
    fc.integer({ min: 0, max: 9999 }),
    fc.integer({ min: 0, max: 13 }),
    fc.integer({ min: 0, max: 32 }),
  );
  const text = ([y, m, dd]: [number, number, number]) =>
    `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(dd).padStart(2, '0')}`;
  const valid = (s: string) => {
    const ms = Date.parse(`${s}T00:00:00Z`);
    return s >= '2000-01-01' && s <= '2100-12-31' && !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === s;
  };
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('data', 'export.csv', 'export.xlsx'),
      day,
      fc.boolean(),
      async (path, from, which) => {
        const bad = text(from);
        fc.pre(!valid(bad));
        const name = which ? 'dateFrom' : 'dateTo';
        const query = which ? `dateFrom=${bad}&dateTo=2026-01-31` : `dateFrom=2026-01-01&dateTo=${bad}`;
        const res = await t.fetch(`/v1/reports/${report}/${path}?${query}&groupBy=campaign`, {
          headers: { authorization: `Bearer ${d.token}` },
        });
        assert.is(res.status, 400, `${path}?${query}`);
        const body = await res.json();
        assert.ok(body.type.endsWith('/invalid-parameter'));
        assert.match(body.detail, name);
        // Refused before the charge: its log line says it cost nothing (a quota lease makes RateLimit inexact here).
        assert.is(t.logs.at(-1)!.cost, 0, `${path}?${query} was charged`);
        assert.is(res.headers.get('ratelimit'), null, 'no quota standing: never metered');
      },
    ),
    { numRuns: runs(60) },
  );
  for (const query of [
    'dateFrom=0000-01-01&dateTo=0000-01-31',
    'dateFrom=1999-12-31&dateTo=2000-01-02',
    'dateFrom=2100-12-31&dateTo=2101-01-01',
  ]) {
    const res = await t.fetch(`/v1/reports/${report}/export.csv?${query}`, {
      headers: { authorization: `Bearer ${d.token}` },
    });
    assert.is(res.status, 400, query);
  }
  const edge = await t.fetch(`/v1/reports/${report}/data?dateFrom=2000-01-01&dateTo=2000-01-31`, {
    headers: { authorization: `Bearer ${d.token}` },
  });
  assert.is(edge.status, 200, 'the window is inclusive');
});

it('a NUL character in a parameter a route reads is a 400 naming it, not a database error', async ({ t, d }) => {
  const org = d.org;
  const report = d.reports['Cross-channel performance'];
  for (const [path, key] of [
    [`/v1/organizations/${org}/campaigns`, 'name'],
    [`/v1/reports/${report}/data?dateFrom=2026-01-01&dateTo=2026-01-03&groupBy=campaign`, 'nameFilter'],
  ]) {
    const res = await t.fetch(`${path}${path.includes('?') ? '&' : '?'}${key}=a%00b`, {
      headers: { authorization: `Bearer ${d.token}` },
    });
    assert.is(res.status, 400, path);
    const body = await res.json();
    assert.is(body.type.split('/').pop(), 'invalid-parameter');
    assert.match(body.detail, key);
  }
});

it('random path ids and path segments never reach a 500', async ({ t, d }) => {
  const segment = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom('%FF%FE', '..', '%2e%2e', '%00', 'a'.repeat(5000), '{id}', ':id', '*'),
  );
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(
        '/v1/reports/',
        '/v1/organizations/',
        '/v1/reports/X/',
        '/v1/organizations/X/',
        '/problems/',
        '/v1/',
      ),
      segment,
      async (prefix, id) => {
        const path = prefix.replace('X', d.org) + encodeURIComponent(id).replace(/%25/g, '%');
        let url: string;
        try {
          url = new URL(path, 'http://readout.test').pathname;
        } catch {
          return;
        }
        await expectDocumented(await t.fetch(url, { headers: { authorization: `Bearer ${d.token}` } }), url);
      },
    ),
    { numRuns: runs(300) },
  );
});

it('a 100 kB query string, huge and malformed headers, and non-UTF-8 bytes get clear 4xx answers', async ({
  t,
  d,
  paths,
}) => {
  const huge = `pageSize=${'9'.repeat(100_000)}`;
  for (const path of paths)
    await expectDocumented(
      await t.fetch(`${path}?${huge}`, { headers: { authorization: `Bearer ${d.token}` } }),
      `${path}?<100 kB>`,
    );
  const headers: Record<string, string>[] = [
    { authorization: `Bearer ${'a'.repeat(100_000)}` },
    { authorization: 'Bearer' },
    { authorization: 'Bearer a.b.c' },
    { authorization: `Bearer ${d.token} extra` },
    { authorization: `bearer ${d.token}`.toUpperCase() },
    { traceparent: 'x'.repeat(10_000) },
    { 'if-none-match': 'W/"'.repeat(10_000) },
  ];
  for (const h of headers)
    await expectDocumented(await t.fetch('/v1/reports', { headers: h }), JSON.stringify(h).slice(0, 60));
  for (const raw of ['%FF%FE%FD', '%C0%AF', '%ED%A0%80', '%']) {
    await expectDocumented(
      await t.fetch(`/v1/reports?organizationId=${raw}&pageSize=${raw}`, {
        headers: { authorization: `Bearer ${d.token}` },
      }),
      raw,
    );
  }
});

it('the token endpoint answers RFC 6749 errors to anything', async ({ t }) => {
  const contentType = fc.constantFrom(
    'application/x-www-form-urlencoded',
    'application/json',
    'text/plain',
    'multipart/form-data; boundary=x',
    '',
    'application/x-www-form-urlencoded; charset=latin1',
  );
  const body = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc
      .array(fc.tuple(fc.constantFrom('grant_type', 'client_id', 'client_secret', 'scope', 'x'), value), {
        maxLength: 8,
      })
      .map((p) => new URLSearchParams(p).toString()),
    fc.constant('x'.repeat(40_000)),
    fc.uint8Array({ maxLength: 100 }).map((bytes) => new TextDecoder('latin1').decode(bytes)),
  );
  await fc.assert(
    fc.asyncProperty(contentType, body, fc.constantFrom('POST', 'GET', 'PUT'), async (type, text, method) => {
      const res = await t.fetch('/api/connect/token', {
        method,
        headers: type ? { 'content-type': type } : {},
        body: method === 'GET' ? undefined : text,
      });
      assert.ok([400, 401, 405].includes(res.status), `${method} ${type}: ${res.status}`);
      assert.is(res.headers.get('cache-control'), 'no-store');
      const json = await res.json();
      assert.ok(
        ['invalid_request', 'invalid_client', 'invalid_grant', 'unsupported_grant_type', 'invalid_scope'].includes(
          json.error,
        ),
        json.error,
      );
    }),
    { numRuns: runs(200) },
  );
  const raw = new Uint8Array([0x67, 0x72, 0x61, 0x6e, 0x74, 0x5f, 0x74, 0x79, 0x70, 0x65, 0x3d, 0xff, 0xfe]);
  const res = await t.fetch('/api/connect/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: raw,
  });
  assert.is((await res.json()).error, 'invalid_request', 'non-UTF-8 body');
  const duplicated = await t.fetch('/api/connect/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=rdc_x&client_secret=a&client_secret=b',
  });
  assert.is(duplicated.status, 400);
  assert.match((await duplicated.json()).error_description, 'client_secret is repeated');
});

it.run();
