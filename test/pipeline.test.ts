import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { requestLine, writeRequestLine } from '../src/http/requestLog.ts';
import { LineBuffer } from '../src/http/logLines.ts';
import { traceFrom } from '../src/http/trace.ts';
import { readQuery } from '../src/http/queryParams.ts';
import { pagingEntries } from '../src/http/paging.ts';
import { createContext, pathOf, type Context } from '../src/http/context.ts';
import { testApp, type TestApp } from './support/app.ts';
import { VERSION } from '../src/config.ts';

const it = suite<{ t: TestApp }>('pipeline');
it.before(async (ctx) => {
  ctx.t = await testApp();
});
it.after(async (ctx) => ctx.t.close());

it('health answers 200 {"status":"ok","version"} without a token', async ({ t }) => {
  const res = await t.fetch('/v1/health');
  assert.is(res.status, 200);
  assert.equal(await res.json(), { status: 'ok', version: VERSION });
});

it("health answered directly (the Node fast path) is the pipeline's answer, log line included", async ({ t }) => {
  const trace = '4bf92f3577b34da6a3ce929d0e0e4736';
  const piped = await t.fetch('/v1/health', { headers: { traceparent: `00-${trace}-00f067aa0ba902b7-01` } });
  const before = t.logs.length;
  const direct = (await t.app.direct('GET', '/v1/health', (name) =>
    name === 'traceparent' ? `00-${trace}-00f067aa0ba902b7-01` : undefined,
  ))!;
  assert.ok(direct, 'a fresh database check lets health answer directly');
  assert.is(direct.status, piped.status);
  assert.is(direct.body, await piped.text());
  const header = (name: string) => direct.headers[direct.headers.indexOf(name) + 1];
  for (const name of ['content-type', 'cache-control']) assert.is(header(name), piped.headers.get(name), name);
  assert.is(header('content-length'), String(Buffer.byteLength(direct.body)));
  assert.match(header('traceparent'), new RegExp(`^00-${trace}-[0-9a-f]{16}-01$`));
  assert.is(t.logs.length, before + 1);
  const { time: _a, ms: _b, ...line } = t.logs.at(-1)!;
  const { time: _c, ms: _d, ...pipedLine } = t.logs.at(-2)!;
  assert.equal(line, pipedLine, 'the same log line');
  // Anything else goes through the pipeline.
  for (const [method, url] of [
    ['HEAD', '/v1/health'],
    ['POST', '/v1/health'],
    ['GET', '/v1/health?x=1'],
    ['GET', '/v1/me'],
  ]) {
    assert.is(await t.app.direct(method, url, () => undefined), undefined, `${method} ${url}`);
  }
});

it("the log line written piece by piece is the JSON of the request's line, whatever its strings hold", () => {
  const trace = traceFrom(null);
  const startedAt = Date.UTC(2026, 10, 22, 10, 15, 0, 7);
  const cases: [string, string, number, number, Parameters<typeof requestLine>[6]][] = [
    ['GET', '/v1/health', 200, 3, {}],
    ['GET', '/v1/health', 200, 1_000_000_000, { cost: 12_345 }],
    ['GET', '/v1/health', 503, 0.25, {}],
    ['HEAD', '/v1/reports', 200, 30_001, { clientId: 'rdc_0123456789abcdef', cost: 1 }],
    [
      'GET',
      '/v1/reports/%22quoted%22/data',
      500,
      Number.NaN,
      { clientId: 'rdc_x', cost: 0, error: 'Error: "boom"\n    at \\path\u0001 ünïcode \u2028', standby: 'b"' },
    ],
    ['UNKNOWN', '/"odd"\\path', 404, 7, { cost: 0 }],
    ['G\uD800T', '/lone\uDC00surrogates\uD83C\uDFAF', 400, 1, { cost: 2 }],
  ];
  // And strings of every kind of character, drawn at random: ASCII, controls, quotes, UTF-8 of 2 to 4 bytes, halves.
  const alphabet = ['a', 'Z', '/', ' ', '~', '"', '\\', '\n', '\u0000', '\u007f', 'é', '€', '🎯', '\uD800', '\uDC00'];
  const random = (n: number) =>
    Array.from({ length: n }, () => alphabet[(Math.random() * alphabet.length) | 0]).join('');
  for (let i = 0; i < 300; i++) {
    cases.push(['GET', random(i % 40), 200, i, { clientId: random(i % 7), cost: i % 3, error: random(i % 5) }]);
  }
  const out = new LineBuffer();
  for (const [method, path, status, ms, noted] of cases) {
    // Twice: the second line reuses what the first encoded of its strings (RepeatedJson).
    out.used = 0;
    writeRequestLine(out, method, path, status, startedAt, ms, trace, noted);
    writeRequestLine(out, method, path, status, startedAt, ms, trace, noted);
    const expected = JSON.stringify(requestLine(method, path, status, startedAt, ms, trace, noted));
    assert.is(out.toString(), `${expected}\n${expected}\n`, `${method} ${path}`);
  }
});

it("a request's path is URL's pathname, whether read as it stands or parsed", () => {
  const urls = [
    'http://localhost/v1/reports',
    'http://localhost/v1/reports?organizationId=x&page=2',
    'http://localhost/',
    'http://localhost',
    'http://localhost?x=/a',
    'http://a\\b/v1',
    'http://localhost/v1/../x',
    'http://localhost/v1/%2e%2e/x',
    'http://localhost/v1/./x/',
    'http://localhost/v1//x/',
    'http://localhost/a b"c<d>',
    'http://localhost/v1#frag',
    'HTTP://LOCALHOST/V1',
    'http://localhost/v1/reports/0a1b-2c/export.csv?dateFrom=1',
    'http://localhost/v1/ä',
    'http://localhost/~user/_x-y/',
    'https://h:8080/v1/x?a=b?c',
    'http://localhost/v1\\reports',
  ];
  for (const url of urls) assert.is(pathOf(url), new URL(url).pathname, url);
  // One way to match each character: a long path that turns out not to be plain is not retried every which way.
  assert.is(pathOf(`http://localhost/${'a'.repeat(50)}!`), `/${'a'.repeat(50)}!`);
});

it('new trace and span ids never repeat, across refills of the random pool', () => {
  const traces = Array.from({ length: 2000 }, () => traceFrom(null));
  for (const t of traces) assert.match(t.traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  assert.is(new Set(traces.map((t) => t.traceparent.slice(3, 52))).size, 2000);
});

it('query parameters: the defaults when none are given, parsed when some are, refused when out of range', () => {
  const ctx = (query: Record<string, string>) =>
    ({ query: Object.assign(Object.create(null), query) }) as unknown as Context;
  assert.equal(readQuery(ctx({}), pagingEntries), { page: 1, pageSize: 50 });
  assert.equal(readQuery(ctx({ page: '3' }), pagingEntries), { page: 3, pageSize: 50 });
  assert.throws(() => readQuery(ctx({ pageSize: '0' }), pagingEntries), /pageSize/);
});

it('an unknown path is a not-found problem document', async ({ t }) => {
  const res = await t.fetch('/v1/nope');
  assert.is(res.status, 404);
  assert.is(res.headers.get('content-type'), 'application/problem+json');
  const body = await res.json();
  assert.is(body.type, 'http://readout.test/problems/not-found');
  assert.is(body.status, 404);
  assert.is(body.instance, '/v1/nope');
  assert.is(body.retryAfterSeconds, null);
  assert.type(body.title, 'string');
  assert.type(body.detail, 'string');
  assert.match(body.traceId, /^[0-9a-f]{32}$/);
});

for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
  it(`${method} on a /v1 path is 405 with Allow: GET, HEAD`, async ({ t }) => {
    const res = await t.fetch('/v1/health', { method });
    assert.is(res.status, 405);
    assert.is(res.headers.get('allow'), 'GET, HEAD');
    const body = await res.json();
    assert.is(body.type, 'http://readout.test/problems/not-found');
    assert.is(body.status, 405);
  });
}

it('HEAD answers like GET, with headers and no body', async ({ t }) => {
  const res = await t.fetch('/v1/health', { method: 'HEAD' });
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.is(await res.text(), '');
});

it('no response carries an Access-Control header, preflight included', async ({ t }) => {
  const origin = { origin: 'https://evil.example', 'access-control-request-method': 'GET' };
  for (const [path, method] of [
    ['/v1/health', 'GET'],
    ['/v1/health', 'OPTIONS'],
    ['/v1/nope', 'GET'],
    ['/elsewhere', 'OPTIONS'],
  ]) {
    const res = await t.fetch(path, { method, headers: origin });
    for (const name of res.headers.keys())
      assert.not.match(name, /^access-control-/i, `${method} ${path} sent ${name}`);
  }
});

it('a valid incoming traceparent supplies the traceId, and a traceparent goes out', async ({ t }) => {
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const res = await t.fetch('/v1/nope', { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
  assert.is((await res.json()).traceId, traceId);
  assert.match(res.headers.get('traceparent')!, new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
});

it('a malformed traceparent is replaced by a new trace id', async ({ t }) => {
  const res = await t.fetch('/v1/nope', { headers: { traceparent: 'garbage' } });
  const { traceId } = await res.json();
  assert.match(traceId, /^[0-9a-f]{32}$/);
  assert.ok(res.headers.get('traceparent')!.includes(traceId));
});

it('one JSON log line per request with the docs/decisions.md §8 fields', async ({ t }) => {
  t.logs.length = 0;
  await t.fetch('/v1/health');
  assert.is(t.logs.length, 1);
  const line = t.logs[0];
  for (const key of ['time', 'method', 'path', 'status', 'ms', 'clientId', 'traceId', 'cost'])
    assert.ok(key in line, key);
  assert.is(line.path, '/v1/health');
  assert.is(line.status, 200);
});

it('what a route takes after its answer is over (the deadline answered for it) is given back at once, not held', () => {
  const ctx = createContext(
    { method: 'GET', url: 'http://x/v1/reports', headers: new Headers(), body: null },
    traceFrom(null),
    0,
  );
  const given: string[] = [];
  ctx.onDone(() => given.push('first'));
  ctx.done();
  assert.equal(given, ['first']);
  // A route still running when the deadline answered takes a connection or a client's place afterwards.
  ctx.onDone(() => given.push('late'));
  assert.equal(given, ['first', 'late']);
  ctx.done();
  assert.equal(given, ['first', 'late'], 'each once');
});

it.run();
