// docs/decisions.md §4: a client never pays for the service's failure. Every 5xx after the charge
// (data-source-unavailable, request-timeout, internal-error from a backend killed under the query) gives the charge
// back, as a 304 does, and its RateLimit header shows the standing after the refund; another process over the same
// database sees it too.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp, type App } from '../src/app.ts';
import { skipped } from './support/skip.ts';
import { BASE, testApp, type TestApp } from './support/app.ts';
import { onPostgres, LOCK_FACTS } from './support/database.ts';
import { bearer, tenant } from './support/fixtures.ts';
import { fixtureReport } from './support/importFixture.ts';

const it = suite<{ t: TestApp }>('5xx refunds');
it.before(async (ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400' } });
});
it.after(async (ctx) => ctx.t.close());

/** remaining of a RateLimit header: "hourly";r=N;t=S. */
const remaining = (res: Response) => Number(/r=(\d+)/.exec(res.headers.get('ratelimit') ?? '')?.[1]);
const JAN = 'dateFrom=2026-01-01&dateTo=2026-01-31&groupBy=campaign';

/** An organization with the fixture report (two ad accounts: data costs 2) and a token; what it has spent, as /v1/me reads it. */
async function setUp(t: TestApp) {
  const { org, token } = await tenant(t);
  const { report } = await fixtureReport(t, org);
  const used = async (app: App = t.app) => {
    // A process's unspent lease goes back to the store within a quarter of a second (leases.ts).
    await new Promise((resolve) => setTimeout(resolve, 400));
    const me = await (await app(new Request(`${BASE}/v1/me`, bearer(token)))).json();
    return (me.quota.limitPerHour - me.quota.remaining) as number;
  };
  return { org, token, report, used };
}

it('data-source-unavailable costs nothing, and its RateLimit shows the refund', async ({ t }) => {
  const { org, token, report, used } = await setUp(t);
  const before = await used();
  await t.db.sql`update ad_accounts set connection_status = 'expired' where organization_id = ${org}`;
  const res = await t.fetch(`/v1/reports/${report}/data?${JAN}`, bearer(token));
  assert.is(res.status, 503);
  assert.is((await res.json()).type.split('/').pop(), 'data-source-unavailable');
  const list = await t.fetch('/v1/reports', bearer(token));
  assert.is(remaining(res), remaining(list) + 1, 'the 503 showed the standing without its own charge');
  assert.is(await used(), before + 1, 'only the list was charged');
  await t.db.sql`update ad_accounts set connection_status = 'ok' where organization_id = ${org}`;
});

it('request-timeout and a backend killed under the query cost nothing, here and in another process', async ({ t }) => {
  if (
    skipped(
      !onPostgres,
      'refunds',
      'a timeout and a killed backend refunded',
      'needs PostgreSQL: the embedded database cannot cancel or end a running query',
    )
  )
    return;
  const { token, report, used } = await setUp(t);
  const app = createApp({
    sql: t.db.sql,
    config: { ...t.config, requestDeadlineMs: 700 },
    clock: () => t.clock.now,
    log: () => {},
  });
  const other = createApp({ sql: t.db.sql, config: t.config, clock: () => t.clock.now, log: () => {} });
  const blocker = await t.db.sql.reserve();
  try {
    const before = await used(other);
    await blocker`begin`;
    await blocker.unsafe(LOCK_FACTS);
    // Held by the lock past the deadline.
    const timedOut = await app(new Request(`${BASE}/v1/reports/${report}/data?${JAN}`, bearer(token)));
    assert.is(timedOut.status, 503);
    assert.is((await timedOut.json()).type.split('/').pop(), 'request-timeout');
    // Held by the lock, then its backend ended by someone else.
    const pending = other(new Request(`${BASE}/v1/reports/${report}/data?${JAN}`, bearer(token)));
    let killed = 0;
    for (let i = 0; i < 100 && killed === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      killed = (
        await t.db.sql`select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
        where wait_event_type = 'Lock' and query like '%report-data-campaign%' and pid <> pg_backend_pid()`
      )[0].n;
    }
    assert.ok(killed > 0, 'the waiting query was found and ended');
    const failed = await pending;
    assert.ok(failed.status >= 500, `a 5xx, got ${failed.status}`);
    await blocker`rollback`;
    for (const res of [timedOut, failed]) assert.ok(remaining(res) >= 0, 'a RateLimit header');
    assert.is(await used(other), before, 'neither was charged, as another process sees it');
    assert.is(await used(app), before);
  } finally {
    await blocker`rollback`.catch(() => {});
    blocker.release();
    await app.close();
    await other.close();
  }
});

it.run();
