// Real traffic against a real server on PostgreSQL: abandoned downloads, HEAD on exports, killed backends, stalled
// readers. Every answer a checker reads must be the right one, and the server must live through all of it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { testApp, type TestApp } from './support/app.ts';
import { onPostgres } from './support/database.ts';
import { skipped } from './support/skip.ts';
import { bounded, sleep, trafficServer, type Traffic } from './support/traffic.ts';

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

const NEEDS_POSTGRES = 'needs PostgreSQL (TEST_DATABASE_URL): the embedded database runs one query at a time and cannot cancel one';

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
  const until = Date.now() + 90_000;
  let stop = false;

  const check = async (token: string, clientId: string, i: number) => {
    const path = i % 6 === 5 ? '/v1/me' : paths[i % paths.length];
    const res = await fetch(base + path, { headers: auth(token) });
    const body = await res.text();
    if (res.status !== 200) return void wrong.push(`${path}: ${res.status} ${body.slice(0, 200)}`);
    if (path === '/v1/me') {
      const me = JSON.parse(body);
      if (me.clientId !== clientId || me.quota.state !== 'ok' || me.plan.state !== 'healthy') wrong.push(`/v1/me: ${body.slice(0, 200)}`);
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
    for (let i = w; !stop && Date.now() < until; i++) await abuse(token, i).catch((error) => wrong.push(`abuser: ${error.cause?.code ?? error.message}`));
  });
  await Promise.all(
    checkers.map(async ({ token, client }, w) => {
      let i = w;
      await bounded(checked, 3000, until, () => check(token, client.clientId, i++).catch((error) => void wrong.push(`checker: ${error.cause?.code ?? error.message}`)));
    }),
  );
  stop = true;
  await Promise.all(abusing);
  assert.ok(checked.n >= 3000, `only ${checked.n} answers checked in time`);
  assert.equal(wrong.slice(0, 10), [], `${wrong.length} wrong answers of ${checked.n}:\n${server.output().slice(-3000)}`);
  assert.is((await fetch(`${base}/v1/health`)).status, 200, 'the server is alive');
  assert.not.match(server.output(), /"msg":"uncaught"|Unhandled|TypeError/);
});

it.run();
