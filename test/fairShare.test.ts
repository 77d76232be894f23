// The heavy connections are shared fairly between organizations (docs/decisions.md §13): one organization holds at
// most its share, a place that comes free goes to the organization holding fewest, and a download whose reader takes
// nothing is cut so that its connection comes back.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fairSlots } from '../src/store/fairSlots.ts';
import { connectionOptionsOf, exclusivePool, type ExclusivePool } from '../src/store/exclusive.ts';
import { loadConfig } from '../src/config.ts';
import { testApp } from './support/app.ts';
import { bearer, createClient, getToken, tenant } from './support/fixtures.ts';
import { fixtureReport } from './support/importFixture.ts';
import { onPostgres } from './support/database.ts';
import { skipped } from './support/skip.ts';

const it = suite('heavy connections shared between organizations');
const never = new AbortController().signal;
/** One turn of the event loop: the promises a release settles have run their callbacks (no time is waited for). */
const turn = () => new Promise((resolve) => setImmediate(resolve));

it('an owner holds at most its cap; the others still get the free places', async () => {
  const slots = fairSlots(4, 2);
  await slots.acquire('a', never);
  await slots.acquire('a', never);
  let third = false;
  void slots.acquire('a', never).then(() => (third = true));
  await slots.acquire('b', never);
  await slots.acquire('c', never);
  await Promise.resolve();
  assert.not.ok(third, "a's third waits though a place was free when it asked");
  assert.equal(slots.stats(), { inUse: 4, waiting: 1 });
  slots.release('b');
  await turn();
  assert.not.ok(third, 'a place came free, but a holds its cap');
  slots.release('a');
  await turn();
  assert.ok(third);
});

it('an organization holds half the heavy connections, rounded up, unless HEAVY_PER_ORGANIZATION says otherwise', () => {
  const url = { DATABASE_URL: 'postgres://localhost/readout' };
  assert.is(loadConfig({ ...url, HEAVY_CONNECTIONS: '5' }).heavyPerOrganization, 3);
  assert.is(loadConfig({ ...url, HEAVY_CONNECTIONS: '4' }).heavyPerOrganization, 2);
  assert.is(loadConfig({ ...url, HEAVY_CONNECTIONS: '4', HEAVY_PER_ORGANIZATION: '4' }).heavyPerOrganization, 4);
  assert.is(loadConfig({ ...url, HEAVY_CONNECTIONS: '4', HEAVY_PER_ORGANIZATION: '9' }).heavyPerOrganization, 4);
  assert.is(loadConfig({ ...url, DOWNLOAD_STALL_S: '3' }).downloadStallMs, 3000);
});

it('a place that comes free goes to the waiting owner holding fewest, then to the one served longest ago', async () => {
  const slots = fairSlots(2, 2);
  await slots.acquire('a', never);
  await slots.acquire('a', never);
  const order: string[] = [];
  const wait = (owner: string) => slots.acquire(owner, never).then(() => order.push(owner));
  const waits = [wait('a'), wait('a'), wait('b'), wait('c')];
  slots.release('a');
  slots.release('a');
  await Promise.resolve();
  // b and c hold nothing: both before a's waiters, who asked first.
  assert.equal(order.sort(), ['b', 'c']);
  slots.release('b');
  slots.release('c');
  await Promise.all(waits);
  assert.equal(order.slice(2), ['a', 'a']);
});

it('a waiter whose signal aborts leaves the queue', async () => {
  const slots = fairSlots(1, 1);
  await slots.acquire('a', never);
  const abort = new AbortController();
  const waiting = slots.acquire('b', abort.signal);
  abort.abort(new Error('deadline'));
  assert.match(String(await waiting.catch((error) => error)), /deadline/);
  assert.equal(slots.stats(), { inUse: 1, waiting: 0 });
});

it('idle heavy connections are reused, never dropped: a pool of two opens two, however often they are lent', async () => {
  const t = await testApp();
  const pool = exclusivePool(
    () => connectionOptionsOf(t.db.sql),
    2,
    async () => {},
    10_000,
    t.config.poolMode,
    2,
  );
  try {
    const seen = new Set<object>();
    for (let round = 0; round < 4; round++) {
      const lent = await Promise.all([pool.lend(never, 'a'), pool.lend(never, 'a')]);
      for (const connection of lent) {
        seen.add(connection);
        connection.finished();
        pool.giveBack(connection, true);
      }
      const one = await pool.lend(never, 'a');
      seen.add(one);
      one.finished();
      pool.giveBack(one, true);
    }
    assert.is(seen.size, 2);
  } finally {
    await pool.close();
    await t.close();
  }
});

it("six stalled downloads of one organization leave another's data answered", async () => {
  // The embedded database is one session: a download held open holds it for everyone until it is cut.
  const why = 'the embedded database serves one session: a stalled download waits for DOWNLOAD_STALL_S';
  if (skipped(!onPostgres, 'heavy connections shared between organizations', 'six stalled downloads', why)) return;
  // The app's own heavy pool, as it would build it (four connections, two an organization), watched by the test.
  let pool: ExclusivePool | undefined;
  const heavy: ExclusivePool = {
    lend: (signal, owner) => pool!.lend(signal, owner),
    giveBack: (lent, clean) => pool!.giveBack(lent, clean),
    close: () => pool!.close(),
    stats: () => pool!.stats(),
  };
  const t = await testApp({ env: { TOKEN_TTL_S: '86400', REQUEST_DEADLINE_MS: '4000' }, heavy });
  pool = exclusivePool(
    () => connectionOptionsOf(t.db.sql),
    4,
    async () => {},
    10_000,
    t.config.poolMode,
    2,
  );
  try {
    const { org, token } = await tenant(t);
    const second = await getToken(t, await createClient(t.db.sql, org, { name: 'second' }));
    const { report } = await fixtureReport(t, org);
    const other = await tenant(t);
    const otherReport = (await fixtureReport(t, other.org)).report;
    const query = 'dateFrom=2026-01-01&dateTo=2026-01-31&groupBy=campaign';
    // Three downloads of each of two clients, opened and never read: each holds a connection while it has one.
    const stalled = [token, token, token, second, second, second].map((bearerToken) =>
      t.fetch(`/v1/reports/${report}/export.csv?${query}`, bearer(bearerToken)),
    );
    // Every one of them has its place, or waits for one, before the other organization asks.
    for (let turns = 0; turns < 1000 && pool.stats().inUse + pool.stats().waiting < 6; turns++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(pool.stats(), { inUse: 2, waiting: 4, size: 4 });
    const answered = await t.fetch(`/v1/reports/${otherReport}/data?${query}`, bearer(other.token));
    assert.is(answered.status, 200, await answered.clone().text());
    for (const download of await Promise.allSettled(stalled))
      if (download.status === 'fulfilled') await download.value.body?.cancel().catch(() => {});
  } finally {
    await t.close();
  }
});

it('a download whose reader takes nothing is cut after DOWNLOAD_STALL_S, and its connection serves the next', async () => {
  const t = await testApp({
    env: {
      TOKEN_TTL_S: '86400',
      HEAVY_CONNECTIONS: '1',
      DOWNLOAD_STALL_S: '1',
      REQUEST_DEADLINE_MS: '20000',
    },
  });
  try {
    const { org, token } = await tenant(t);
    const { report } = await fixtureReport(t, org);
    const query = 'dateFrom=2026-01-01&dateTo=2026-01-31&groupBy=campaign';
    const stalled = await t.fetch(`/v1/reports/${report}/export.csv?${query}`, bearer(token));
    assert.is(stalled.status, 200);
    // The one connection is the stalled download's until it is cut; the next request is then answered.
    const next = await t.fetch(`/v1/reports/${report}/data?${query}`, bearer(token));
    assert.is(next.status, 200, await next.clone().text());
    assert.instance(await stalled.text().catch((error) => error), Error, 'the stalled download was cut');
    const cut = t.logs.find((line) => line.msg === 'download cut');
    assert.ok(cut, JSON.stringify(t.logs));
  } finally {
    await t.close();
  }
});

it.run();
