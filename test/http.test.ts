// What HTTP itself refuses, through the real Node server: oversized heads, unknown methods, broken requests and a
// token request declaring a body too large to read. Each gets a document and a closed connection, never a bare answer.
import { connect } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { testApp, type TestApp } from './support/app.ts';
import { startServer, type RunningServer } from './support/server.ts';

const it = suite<{ t: TestApp; server: RunningServer }>('malformed HTTP');
it.before(async (ctx) => {
  ctx.t = await testApp();
  ctx.server = await startServer({ DATABASE_URL: ctx.t.db.url, BASE_URL: 'http://readout.test', DEMO: 'off' });
});
it.after(async (ctx) => {
  await ctx.server.stop();
  await ctx.t.close();
});

/** Sends raw bytes; resolves with what came back once the server closed the connection (or after 5 s). */
function exchange(server: RunningServer, request: string): Promise<{ text: string; closed: boolean }> {
  const { port } = new URL(server.url);
  return new Promise((resolve) => {
    let text = '';
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
    const timer = setTimeout(() => (socket.destroy(), resolve({ text, closed: false })), 5000);
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', () => {});
    socket.on('close', () => (clearTimeout(timer), resolve({ text, closed: true })));
  });
}

const problemOf = (text: string) => {
  const [head, body] = text.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]), head, body: JSON.parse(body) };
};

it('a URL, one header or many headers over 16 KB: 400 invalid-parameter naming what was too long, connection closed', async ({
  server,
}) => {
  const many = Array.from({ length: 400 }, (_, i) => `X-Header-${i}: ${'c'.repeat(50)}\r\n`).join('');
  for (const [request, named] of [
    [`GET /v1/reports?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, /request line/],
    [`GET /v1/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`, /header section/],
    [`GET /v1/me HTTP/1.1\r\nHost: x\r\n${many}\r\n`, /header section/],
  ] as const) {
    const { text, closed } = await exchange(server, request);
    const problem = problemOf(text);
    // docs/decisions.md §8: the type's own status, never 414 or 431.
    assert.is(problem.status, 400);
    assert.match(problem.head, /content-type: application\/problem\+json/i);
    assert.ok(problem.body.type.endsWith('/invalid-parameter'));
    assert.is(problem.body.status, 400);
    assert.match(problem.body.detail, named);
    assert.ok(closed, 'the connection is closed');
  }
});

it('an unknown method: 405 not-found with Allow, as for any method /v1 does not answer', async ({ server }) => {
  const { text, closed } = await exchange(server, 'FOO /v1/me HTTP/1.1\r\nHost: x\r\n\r\n');
  const problem = problemOf(text);
  assert.is(problem.status, 405);
  assert.match(problem.head, /allow: GET, HEAD/i);
  assert.ok(problem.body.type.endsWith('/not-found'));
  assert.is(problem.body.instance, '/v1/me');
  assert.ok(closed);
});

it('a request that is not HTTP at all: 400 invalid-parameter, connection closed', async ({ server }) => {
  const { text, closed } = await exchange(server, 'HELLO THERE\r\n\r\n');
  const problem = problemOf(text);
  assert.is(problem.status, 400);
  assert.ok(problem.body.type.endsWith('/invalid-parameter'));
  assert.ok(closed);
});

it('a token request declaring 100 MB is refused at once without being read, and its connection closed', async ({
  server,
}) => {
  const started = Date.now();
  const head =
    'POST /api/connect/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 104857600\r\n\r\ngrant_type=client_credentials';
  const { text, closed } = await exchange(server, head);
  assert.ok(closed, 'the server closed the connection instead of reading 100 MB');
  assert.ok(Date.now() - started < 3000);
  const [headers, body] = text.split('\r\n\r\n');
  assert.match(headers, /^HTTP\/1\.1 400 /);
  assert.match(headers, /cache-control: no-store/i);
  assert.is(JSON.parse(body).error, 'invalid_request');
});

it('the server answers normally afterwards', async ({ server }) => {
  assert.is((await fetch(`${server.url}/v1/health`)).status, 200);
  assert.not.match(server.output(), /"msg":"uncaught"/);
});

it.run();
