// Real traffic against a real server on PostgreSQL: abandoned downloads, HEAD on exports, killed backends, stalled
// readers. Every answer a checker reads must be the right one, and the server must live through all of it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { testApp, type TestApp } from './support/app.ts';
import { onPostgres } from './support/database.ts';
import { skipped } from './support/skip.ts';
import { connect, type Socket } from 'node:net';
import { bounded, sleep, trafficServer, type Traffic } from './support/traffic.ts';
import { startServer } from './support/server.ts';
import { createClient, createOrg } from './support/fixtures.ts';
import { fixtureReport } from './support/importFixture.ts';

const it = suite<{ t: TestApp; traffic: Traffic }>('real traffic');
it.before(async (ctx) => {
  if (!onPostgres) return;
  ctx.t = await testApp();
  ctx.traffic = await trafficServer(ctx.t);
});
it.after(async (ctx) => {
  await ctx.traffic?.server.stop();
  await ctx.t?.close();
});

const NEEDS_POSTGRES =
  'needs PostgreSQL (TEST_DATABASE_URL): the embedded database runs one query at a time and cannot cancel one';

it('abandoned and HEAD exports never cross another request’s answer (3,000 checked answers)', async ({ traffic }) => {
  if (skipped(!onPostgres, 'real traffic', 'crossed results', NEEDS_POSTGRES)) return;
  const { server, report, longRange } = traffic;
  const base = server.url;
  const checkers = await Promise.all(Array.from({ length: 6 }, () => traffic.client()));
  const abusers = await Promise.all(Array.from({ length: 4 }, () => traffic.client()));
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });

  // What each checked path must answer, read before the load.
  const paths = [
    `/v1/reports`,
    `/v1/reports/${report}`,
    `/v1/reports/${report}/data?dateFrom=2026-03-07&dateTo=2026-03-09&groupBy=campaign`,
    `/v1/reports/${report}/data?dateFrom=2026-03-07&dateTo=2026-03-09&groupBy=total`,
    `/v1/reports/${report}/data?dateFrom=2026-03-08&dateTo=2026-03-08&groupBy=ad-account`,
  ];
  const expected = new Map<string, string>();
  for (const path of paths) {
    const res = await fetch(base + path, { headers: auth(checkers[0].token) });
    assert.is(res.status, 200, path);
    expected.set(path, await res.text());
  }
  const wrong: string[] = [];
  const checked = { n: 0 };
  const until = Date.now() + Number(process.env.TRAFFIC_SECONDS ?? 120) * 1000;
  let stop = false;

  const check = async (token: string, clientId: string, i: number) => {
    const path = i % 6 === 5 ? '/v1/me' : paths[i % paths.length];
    const res = await fetch(base + path, { headers: auth(token) });
    const body = await res.text();
    if (res.status !== 200) return void wrong.push(`${path}: ${res.status} ${body.slice(0, 200)}`);
    if (path === '/v1/me') {
      const me = JSON.parse(body);
      if (me.clientId !== clientId || me.quota.state !== 'ok' || me.plan.state !== 'healthy')
        wrong.push(`/v1/me: ${body.slice(0, 200)}`);
    } else if (body !== expected.get(path)) {
      wrong.push(`${path}: a different body (${body.length} bytes against ${expected.get(path)!.length})`);
    }
  };
  const abuse = async (token: string, i: number) => {
    const kind = i % 4;
    const file = kind % 2 === 0 ? 'export.csv' : 'export.xlsx';
    const url = `${base}/v1/reports/${report}/${file}?${longRange}`;
    if (kind < 2) {
      const res = await fetch(url, { method: 'HEAD', headers: auth(token) });
      await res.arrayBuffer();
      if (res.status >= 500) wrong.push(`HEAD ${file}: ${res.status}`);
      return;
    }
    const gone = new AbortController();
    const res = await fetch(url, { headers: auth(token), signal: gone.signal });
    if (res.status >= 500) wrong.push(`GET ${file}: ${res.status}`);
    const reader = res.body!.getReader();
    await reader.read().catch(() => {});
    await sleep(i % 3);
    gone.abort();
    await reader.cancel().catch(() => {});
  };

  const abusing = abusers.map(async ({ token }, w) => {
    for (let i = w; !stop && Date.now() < until; i++)
      await abuse(token, i).catch((error) => wrong.push(`abuser: ${error.cause?.code ?? error.message}`));
  });
  await Promise.all(
    checkers.map(async ({ token, client }, w) => {
      let i = w;
      await bounded(checked, 3000, until, () =>
        check(token, client.clientId, i++).catch(
          (error) => void wrong.push(`checker: ${error.cause?.code ?? error.message}`),
        ),
      );
    }),
  );
  stop = true;
  await Promise.all(abusing);
  // 3,000 take about 50 s on a 2-core machine; a slower one is still held to a thousand.
  assert.ok(checked.n >= 1000, `only ${checked.n} answers checked in time`);
  assert.equal(
    wrong.slice(0, 10),
    [],
    `${wrong.length} wrong answers of ${checked.n}:\n${server.output().slice(-3000)}`,
  );
  assert.is((await fetch(`${base}/v1/health`)).status, 200, 'the server is alive');
  assert.not.match(server.output(), /"msg":"uncaught"|Unhandled|TypeError/);
});

/** Export backends of the test database still on the server (besides the test's own). */
async function exportBackends(t: TestApp): Promise<number[]> {
  const rows = await t.db
    .sql`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
    and state <> 'idle' and query not like '%pg_stat_activity%'
    and (query like '%as binary COPY%' or query like '%rendered as xlsx%' or query like '/* report-data-%')`;
  return rows.map((row) => row.pid);
}

/** A raw HTTP/1.1 GET whose reader the test controls: paused, or reading a byte at a time. */
function rawGet(
  url: string,
  token: string,
): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect(Number(port), hostname, () => {
      socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    });
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.setEncoding('latin1');
    socket.once('data', (chunk) => {
      text += chunk;
      socket.pause();
      socket.on('data', (more) => (text += more));
      resolve({ socket, received: () => text, closed });
    });
    socket.on('error', () => {});
    setTimeout(() => reject(new Error('no answer in 10 s')), 10_000).unref();
  });
}

it('backends killed mid-export (CSV and XLSX, fast and stalled readers, closing before and after): the server lives on', async ({
  t,
  traffic,
}) => {
  if (skipped(!onPostgres, 'real traffic', 'backends killed mid-export', NEEDS_POSTGRES)) return;
  const { server, report, longRange } = traffic;
  const { token } = await traffic.client();
  for (const file of ['export.csv', 'export.xlsx']) {
    for (const reader of ['stalled', 'fast']) {
      for (const closing of ['before', 'after']) {
        const gone = new AbortController();
        const res = await fetch(`${server.url}/v1/reports/${report}/${file}?${longRange}`, {
          headers: { authorization: `Bearer ${token}` },
          signal: gone.signal,
        });
        assert.is(res.status, 200);
        const body = res.body!.getReader();
        await body.read();
        const reading =
          reader === 'fast'
            ? (async () => {
                while (!(await body.read()).done);
              })().catch(() => {})
            : Promise.resolve();
        await sleep(50);
        if (closing === 'before') gone.abort();
        for (const pid of await exportBackends(t)) await t.db.sql`select pg_terminate_backend(${pid})`;
        if (closing === 'after') {
          await sleep(50);
          gone.abort();
        }
        await reading;
        await sleep(100);
        const health = await fetch(`${server.url}/v1/health`);
        assert.is(health.status, 200, `${file}, ${reader} reader, closed ${closing} the kill: the server answers`);
        const data = await fetch(
          `${server.url}/v1/reports/${report}/data?dateFrom=2026-03-07&dateTo=2026-03-09&groupBy=total`,
          { headers: { authorization: `Bearer ${token}` } },
        );
        assert.is(data.status, 200, `${file}, ${reader}, ${closing}: the next data request is served`);
        await data.arrayBuffer();
      }
    }
  }
  assert.not.match(server.output(), /"msg":"uncaught"|Unhandled|TypeError/);
});

it('a stalled reader is cut at the deadline, and its query is gone from pg_stat_activity', async ({ t, traffic }) => {
  if (skipped(!onPostgres, 'real traffic', 'stalled readers and the deadline', NEEDS_POSTGRES)) return;
  const short = await startServer({
    DATABASE_URL: t.db.url,
    BASE_URL: 'http://readout.test',
    DEMO: 'off',
    REQUEST_DEADLINE_MS: '3000',
  });
  try {
    const { token } = await traffic.client();
    for (const file of ['export.csv', 'export.xlsx']) {
      const started = Date.now();
      const raw = await rawGet(`${short.url}/v1/reports/${traffic.report}/${file}?${traffic.longRange}`, token);
      assert.match(raw.received(), /^HTTP\/1\.1 200 /);
      // One byte a second, past the deadline: the reader never catches up.
      const trickle = setInterval(() => raw.socket.read(1), 1000);
      await sleep(5000);
      clearInterval(trickle);
      // Then everything that is buffered: the transfer must have been cut, not finished.
      raw.socket.resume();
      const closed = await Promise.race([raw.closed.then(() => true), sleep(5000).then(() => false)]);
      assert.ok(closed, `${file}: the server cut the download`);
      assert.ok(Date.now() - started < 11_000, `${file}: cut after ${Date.now() - started} ms`);
      assert.not.match(raw.received(), /\r\n0\r\n\r\n$/, `${file}: never ended as if whole`);
      let left = await exportBackends(t);
      for (let i = 0; i < 20 && left.length > 0; i++) await sleep(100), (left = await exportBackends(t));
      assert.equal(left, [], `${file}: its query is gone from pg_stat_activity`);
      raw.socket.destroy();
    }
    assert.is((await fetch(`${short.url}/v1/health`)).status, 200);
  } finally {
    await short.stop();
  }
});

it('one client with ten stalled exports: it gets 429 past its limit, uncharged, and another organization is served within a second', async ({
  t,
  traffic,
}) => {
  if (skipped(!onPostgres, 'real traffic', 'fair use', NEEDS_POSTGRES)) return;
  const { server, report, longRange } = traffic;
  const { token } = await traffic.client();
  const auth = { authorization: `Bearer ${token}` };
  const standing = async () =>
    (await (await fetch(`${server.url}/v1/me`, { headers: auth })).json()).quota.remaining as number;
  const raws: { socket: Socket }[] = [];
  const refused: Response[] = [];
  const before = await standing();
  // At once: one organization holds at most half the heavy connections, so a fourth export waits for a place (one
  // comes free when a stalled download is cut) while the six past the client's limit are refused at once.
  const sent = Array.from({ length: 10 }, () =>
    fetch(`${server.url}/v1/reports/${report}/export.csv?${longRange}`, { headers: auth }),
  );
  for (const res of await Promise.all(sent)) {
    if (res.status === 200) {
      // Held open, never read: the response body is left unconsumed.
      raws.push({ socket: res as never });
    } else refused.push(res);
  }
  try {
    assert.is(raws.length, 4, 'HEAVY_PER_CLIENT (4) exports run at once');
    assert.is(refused.length, 6);
    for (const res of refused) {
      assert.is(res.status, 429);
      assert.ok(Number(res.headers.get('retry-after')) >= 1);
      const body = await res.json();
      assert.ok(body.type.endsWith('/rate-limit-exceeded'));
      assert.match(body.detail, /at once/);
    }
    assert.is(await standing(), before - 4 * 4, 'only the four exports that run were charged (2 × 2 accounts each)');

    // Another organization, its own client: lists, data and tokens answer at once.
    const other = await createOrg(t.db.sql, { name: 'Bystander' });
    const client = await createClient(t.db.sql, other);
    const { report: theirs } = await fixtureReport({ ...t, fetch: t.fetch } as TestApp, other);
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const tokenRes = await fetch(`${server.url}/api/connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: client.clientId,
          client_secret: client.clientSecret,
        }),
      });
      assert.is(tokenRes.status, 200);
      const theirAuth = { authorization: `Bearer ${(await tokenRes.json()).access_token}` };
      const list = await fetch(`${server.url}/v1/reports`, { headers: theirAuth });
      assert.is(list.status, 200);
      assert.is((await list.json()).totalCount, 1);
      const data = await fetch(
        `${server.url}/v1/reports/${theirs}/data?dateFrom=2026-01-01&dateTo=2026-01-31&groupBy=campaign`,
        { headers: theirAuth },
      );
      assert.is(data.status, 200);
      assert.is((await data.json()).rows.length, 3);
      const took = Date.now() - started;
      assert.ok(took < 1000, `served in ${took} ms`);
    }
  } finally {
    for (const raw of raws) await (raw.socket as unknown as Response).body?.cancel().catch(() => {});
  }
});

it.run();
