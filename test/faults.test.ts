// Faults injected for real: the database cut and frozen behind a proxy, a query held by a lock, a billing store down.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { skipped } from './support/skip.ts';
import { createApp } from '../src/app.ts';
import { openDatabase } from '../src/store/open.ts';
import { BASE, testApp, type TestApp } from './support/app.ts';
import { onPostgres, LOCK_FACTS } from './support/database.ts';
import { bearer, createClient, createOrg, tenant, tokenRequest } from './support/fixtures.ts';
import { fixtureReport } from './support/importFixture.ts';
import { tcpProxy } from './support/proxy.ts';
import { VERSION } from '../src/config.ts';

const it = suite<{ t: TestApp }>('faults');
it.before(async (ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400' } });
});
it.after(async (ctx) => ctx.t.close());

const typeOf = async (res: Response) =>
  `${res.status} ${res.headers.get('content-type')?.includes('problem') ? (await res.json()).type.split('/').pop() : await res.text()}`;

it('the database gone: 503 rate-limiter-unavailable (never an unmetered 200), health 503, /v1/me 200; back without a restart', async ({
  t,
}) => {
  const { token } = await tenant(t);
  const proxy = await tcpProxy(t.db.url);
  const db = await openDatabase({ databaseUrl: proxy.url, max: 2 });
  const app = createApp({ sql: db.sql, config: t.config, clock: () => t.clock.now, log: () => {} });
  const get = (path: string, init?: RequestInit) => app(new Request(BASE + path, init ?? bearer(token)));
  try {
    assert.is((await get('/v1/reports')).status, 200);
    proxy.set('drop');
    for (let i = 0; i < 2; i++) {
      const res = await get('/v1/reports');
      assert.is(await typeOf(res), '503 rate-limiter-unavailable');
      assert.ok(Number(res.headers.get('retry-after')) > 0);
    }
    assert.equal(await typeOf(await get('/v1/health', {})), `503 {"status":"unavailable","version":"${VERSION}"}`);
    const started = Date.now();
    const me = await get('/v1/me');
    assert.is(me.status, 200);
    assert.ok(Date.now() - started < 3000, '/v1/me does not wait on the missing database');
    assert.is((await me.json()).quota.state, 'unavailable');
    proxy.set('pass');
    let back = 0;
    for (let i = 0; i < 50 && back !== 200; i++) {
      back = (await get('/v1/reports')).status;
      if (back !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    assert.is(back, 200, 'service resumes by itself');
    assert.is((await get('/v1/health', {})).status, 200);
  } finally {
    await db.sql.end({ timeout: 1 }).catch(() => {});
    await proxy.close();
  }
});

it('the database frozen: requests end by the deadline with a 503, never hang', async ({ t }) => {
  const { token } = await tenant(t);
  const proxy = await tcpProxy(t.db.url);
  const db = await openDatabase({ databaseUrl: proxy.url, max: 2 });
  const app = createApp({
    sql: db.sql,
    config: { ...t.config, requestDeadlineMs: 800 },
    clock: () => t.clock.now,
    log: () => {},
  });
  try {
    assert.is((await app(new Request(`${BASE}/v1/reports`, bearer(token)))).status, 200);
    proxy.set('stall');
    const started = Date.now();
    const [reports, health] = await Promise.all([
      app(new Request(`${BASE}/v1/reports`, bearer(token))),
      app(new Request(`${BASE}/v1/health`)),
    ]);
    assert.ok(Date.now() - started < 5000, 'answered within the deadline and health timeout');
    assert.is(await typeOf(reports), '503 request-timeout');
    assert.is(health.status, 503);
  } finally {
    proxy.set('drop');
    await db.sql.end({ timeout: 1 }).catch(() => {});
    await proxy.close();
  }
});

it('the token endpoint with the store down or frozen: 503 temporarily_unavailable, Retry-After, no-store, never a problem document', async ({
  t,
}) => {
  const org = await createOrg(t.db.sql);
  const client = await createClient(t.db.sql, org);
  const fields = { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret };
  for (const mode of ['drop', 'stall'] as const) {
    const proxy = await tcpProxy(t.db.url);
    const db = await openDatabase({ databaseUrl: proxy.url, max: 2 });
    const app = createApp({ sql: db.sql, config: t.config, clock: () => t.clock.now, log: () => {} });
    try {
      assert.is((await app(new Request(`${BASE}/api/connect/token`, tokenRequest(fields)))).status, 200);
      proxy.set(mode);
      const started = Date.now();
      const res = await app(new Request(`${BASE}/api/connect/token`, tokenRequest(fields)));
      assert.ok(Date.now() - started < 5000, `${mode}: answered in ${Date.now() - started} ms`);
      assert.is(res.status, 503, mode);
      assert.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.is(res.headers.get('cache-control'), 'no-store');
      assert.ok(Number(res.headers.get('retry-after')) > 0);
      assert.is((await res.json()).error, 'temporarily_unavailable');
    } finally {
      proxy.set('drop');
      await app.close();
      await db.sql.end({ timeout: 1 }).catch(() => {});
      await proxy.close();
    }
  }
});

it('the token endpoint past the request deadline answers in RFC 6749 form, not a problem document', async ({ t }) => {
  const app = createApp({
    sql: t.db.sql,
    config: { ...t.config, requestDeadlineMs: 300 },
    clock: () => t.clock.now,
    log: () => {},
  });
  // A body that never finishes arriving.
  const body = new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('grant_type=client'));
    },
  });
  const res = await app(
    new Request(`${BASE}/api/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      duplex: 'half',
    } as RequestInit),
  );
  assert.is(res.status, 503);
  assert.is(res.headers.get('cache-control'), 'no-store');
  assert.is((await res.json()).error, 'temporarily_unavailable');
  await app.close();
});

it('a query held past the deadline answers request-timeout and frees its connection for the next request', async ({
  t,
}) => {
  if (
    skipped(
      !onPostgres,
      'faults',
      `a query held past the deadline answers request-timeout and frees its connection for the next request`,
      'needs PostgreSQL: the embedded database cannot cancel a running query',
    )
  )
    return;
  const { org, token } = await tenant(t);
  const { report } = await fixtureReport(t, org);
  const db = await openDatabase({ databaseUrl: t.db.url, max: 1 });
  const app = createApp({
    sql: db.sql,
    config: { ...t.config, requestDeadlineMs: 300 },
    clock: () => t.clock.now,
    log: () => {},
  });
  const blocker = await t.db.sql.reserve();
  try {
    await blocker`begin`;
    await blocker.unsafe(LOCK_FACTS);
    const data = await app(
      new Request(`${BASE}/v1/reports/${report}/data?dateFrom=2026-01-01&dateTo=2026-01-31`, bearer(token)),
    );
    assert.is(await typeOf(data), '503 request-timeout');
    // The pool has one connection: this answers only if the cancelled query gave it back.
    const next = await app(new Request(`${BASE}/v1/reports`, bearer(token)));
    assert.is(next.status, 200);
  } finally {
    await blocker`rollback`;
    blocker.release();
    await db.sql.end({ timeout: 1 });
  }
});

it.run();
