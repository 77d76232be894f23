// Starts the real server on Node, Bun and Deno; each serves /v1/health and shuts down cleanly on SIGTERM, and reads the
// demo's numbers through the paths that differ most between runtimes (raw database bytes, node:crypto, streams).
import { connect } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freshDatabaseUrl, onPostgres } from './support/database.ts';
import { startServer, temporaryDir, tokenFrom, type Runtime } from './support/server.ts';
import { VERSION } from '../src/config.ts';

const it = suite('runtimes');

async function storeEnv(): Promise<{ env: Record<string, string>; cleanup(): Promise<void>; dataDir?: string }> {
  if (onPostgres) {
    const fresh = await freshDatabaseUrl();
    return { env: { DATABASE_URL: fresh.url, DEMO: 'off' }, cleanup: fresh.drop, dataDir: undefined };
  }
  const dir = temporaryDir();
  return { env: { DATA_DIR: dir.path, DEMO: 'off' }, cleanup: async () => dir.remove(), dataDir: dir.path };
}

// One server a runtime (starting one is most of the cost): the demo's numbers first, then health, then SIGTERM.
for (const runtime of ['node', 'bun', 'deno'] as Runtime[]) {
  it(`${runtime}: the demo's numbers as JSON, CSV and XLSX and a 304; /v1/health; exit 0 on SIGTERM`, async () => {
    const store = await storeEnv();
    const server = await startServer({ ...store.env, DEMO: 'auto' }, runtime);
    try {
      const client = {
        clientId: /client id +(\S+)/.exec(server.output())![1],
        clientSecret: /client secret +(\S+)/.exec(server.output())![1],
      };
      const auth = { authorization: `Bearer ${await tokenFrom(server, client)}` };
      const reports = await (await fetch(`${server.url}/v1/reports`, { headers: auth })).json();
      // The second is answered from memory (reportCache.ts): the same kept bytes, not used up by the first answer.
      assert.equal(await (await fetch(`${server.url}/v1/reports`, { headers: auth })).json(), reports, 'kept list');
      const report = reports.data.find((r: { kind: string }) => r.kind === 'standard');
      const query = `groupBy=campaign&dateFrom=2026-01-01&dateTo=2026-01-31`;
      const res = await fetch(`${server.url}/v1/reports/${report.id}/data?${query}`, { headers: auth });
      assert.is(res.status, 200);
      const body = await res.json();
      assert.ok(
        body.rows.length > 0 && typeof body.rows[0].dimensions.campaignName === 'string',
        JSON.stringify(body).slice(0, 500),
      );
      const again = await fetch(`${server.url}/v1/reports/${report.id}/data?${query}`, {
        headers: { ...auth, 'if-none-match': res.headers.get('etag')! },
      });
      assert.is(again.status, 304);
      const csv = await fetch(`${server.url}/v1/reports/${report.id}/export.csv?${query}`, { headers: auth });
      assert.is(csv.status, 200);
      assert.is(
        (await csv.text()).split('\r\n').length,
        body.rows.length + 2,
        'a header, the rows, and the last line break',
      );
      const xlsx = await fetch(`${server.url}/v1/reports/${report.id}/export.xlsx?${query}`, { headers: auth });
      assert.is(xlsx.status, 200);
      assert.equal([...new Uint8Array(await xlsx.arrayBuffer()).slice(0, 2)], [0x50, 0x4b], 'a zip archive');

      const health = await fetch(`${server.url}/v1/health`);
      assert.is(health.status, 200);
      assert.equal(await health.json(), { status: 'ok', version: VERSION });
      // Again while the database check is fresh: on Node this one is answered directly, with the same headers.
      const fresh = await fetch(`${server.url}/v1/health`);
      assert.is(fresh.status, 200);
      assert.is(fresh.headers.get('content-type'), health.headers.get('content-type'));
      assert.is(fresh.headers.get('cache-control'), 'no-store');
      assert.match(fresh.headers.get('traceparent') ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      assert.equal(await fresh.json(), { status: 'ok', version: VERSION });
      const served = await (await fetch(`${server.url}/v1/openapi.json`)).json();
      assert.is(served.servers[0].url, server.url, 'PORT=0: BASE_URL takes the port actually bound');
      const post = await fetch(`${server.url}/v1/health`, { method: 'POST' });
      assert.is(post.status, 405);
      assert.is(post.headers.get('access-control-allow-origin'), null);
      assert.is(await server.stop('SIGTERM'), 0, server.output());
      assert.match(server.output(), /"msg":"shutting down"/);
      // Log lines are written in batches; every request's line is out by the time the process has exited.
      assert.is(
        server.output().match(/"method":"GET","path":"\/v1\/health","status":200/g)?.length,
        2,
        server.output(),
      );
      assert.match(server.output(), /"method":"POST","path":"\/v1\/health","status":405/);
      if (store.dataDir) assert.not.ok(existsSync(join(store.dataDir, 'readout-socket.json')), 'port file removed');
    } finally {
      await server.stop('SIGKILL');
      await store.cleanup();
    }
  });
}

// docs/decisions.md §8: past 16 KB, 400 invalid-parameter naming what was too long, never 414 or 431 with that type.
// Node's parser and the Fetch runtimes' adapters answer it; more headers than Bun's parser takes (100) it refuses
// itself.
for (const runtime of ['node', 'bun', 'deno'] as Runtime[]) {
  it(`${runtime}: a URL or a header section over 16 KB is 400 invalid-parameter naming it`, async () => {
    const store = await storeEnv();
    const server = await startServer({ ...store.env, DEMO: 'off' }, runtime);
    try {
      const { port } = new URL(server.url);
      const exchange = (text: string) =>
        new Promise<string>((resolve) => {
          const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
          let out = '';
          socket.on('data', (chunk) => (out += chunk));
          socket.on('close', () => resolve(out));
          socket.on('error', () => resolve(out));
          setTimeout(() => (socket.destroy(), resolve(out)), 5000);
        });
      for (const [request, named] of [
        [`GET /v1/reports?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, /request line/],
        [`GET /v1/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`, /header section/],
        [
          `GET /v1/me HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 60 }, (_, i) => `X-Header-${i}: ${'c'.repeat(300)}\r\n`).join('')}\r\n`,
          /header section/,
        ],
      ] as const) {
        const text = await exchange(request);
        const status = Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1]);
        assert.is(status, 400, `${runtime}: ${text.slice(0, 80)}`);
        const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
        assert.ok(body.type.endsWith('/invalid-parameter'));
        assert.is(body.status, 400);
        assert.match(body.detail, named);
      }
    } finally {
      await server.stop('SIGKILL');
      await store.cleanup();
    }
  });
}

it('SIGINT also shuts down gracefully, and a restart finds its data', async () => {
  const store = await storeEnv();
  try {
    const first = await startServer(store.env);
    assert.is(await first.stop('SIGINT'), 0);
    const second = await startServer(store.env);
    const res = await fetch(`${second.url}/v1/health`);
    assert.is(res.status, 200);
    assert.is(await second.stop(), 0);
    assert.not.match(second.output(), /migrations applied/, 'the second start applies no migration');
  } finally {
    await store.cleanup();
  }
});

it.run();
