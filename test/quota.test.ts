import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { skipped } from './support/skip.ts';
import { createApp } from '../src/app.ts';
import type { Context } from '../src/http/context.ts';
import type { Principal } from '../src/http/caller.ts';
import type { Sql } from '../src/store/database.ts';
import { openDatabase } from '../src/store/open.ts';
import type { ApiError } from '../src/http/problem.ts';
import { quota, windowStart } from '../src/billing/quota/charging.ts';
import { BASE, testApp, type TestApp } from './support/app.ts';
import { bearer, cli, createClient, createOrg, getToken, tenant } from './support/fixtures.ts';
import { startServer, tokenFrom, type RunningServer } from './support/server.ts';
import { onPostgres } from './support/database.ts';

const it = suite<{ t: TestApp }>('quota');

/** A charge for a hand-made context whose principal is its own field, on a plan with the public API. */
const PLAN = {
  code: 'business',
  name: 'Business',
  publicApi: true,
  conversionMetrics: false,
  budget: 1000,
  locked: false,
};
function chargeAs(meter: ReturnType<typeof quota>, ctx: Context, cost: number) {
  const { principal } = ctx as unknown as { principal: Principal };
  return meter.charge(ctx, { principal, plan: PLAN }, cost);
}
it.before(async (ctx) => {
  ctx.t = await testApp();
});
it.after(async (ctx) => ctx.t.close());

const call = (t: TestApp, token: string) => t.fetch('/v1/metrics', bearer(token));

it('every metered response carries RateLimit-Policy and RateLimit', async ({ t }) => {
  const { token } = await tenant(t);
  const res = await call(t, token);
  assert.is(res.status, 200);
  assert.is(res.headers.get('ratelimit-policy'), '"hourly";q=10000;w=3600');
  // The test clock stands at 10:15:00 UTC: 45 minutes to the next window.
  assert.is(res.headers.get('ratelimit'), '"hourly";r=9999;t=2700');
});

it('/v1/me and /v1/health cost nothing', async ({ t }) => {
  const { token } = await tenant(t);
  await t.fetch('/v1/me', bearer(token));
  await t.fetch('/v1/health');
  const me = await (await t.fetch('/v1/me', bearer(token))).json();
  assert.is(me.quota.remaining, 10000);
});

it('a single client may use the whole budget, then gets 429 with Retry-After', async ({ t }) => {
  const { token, org } = await tenant(t);
  await cli(t.db.sql, ['plan', 'set', '--org', org, '--plan', 'business', '--budget', '4']);
  for (let i = 0; i < 4; i++) assert.is((await call(t, token)).status, 200);
  const res = await call(t, token);
  assert.is(res.status, 429);
  assert.is(res.headers.get('retry-after'), '2700');
  const body = await res.json();
  assert.is(body.type, `${BASE}/problems/rate-limit-exceeded`);
  assert.is(body.retryAfterSeconds, 2700);
  assert.is(res.headers.get('ratelimit'), '"hourly";r=0;t=2700');
  const me = await (await t.fetch('/v1/me', bearer(token))).json();
  assert.is(me.quota.remaining, 0);
});

it('a new hour brings a new window', async ({ t }) => {
  const { token, org } = await tenant(t);
  await cli(t.db.sql, ['plan', 'set', '--org', org, '--plan', 'business', '--budget', '1']);
  assert.is((await call(t, token)).status, 200);
  assert.is((await call(t, token)).status, 429);
  t.clock.advance(2700_000);
  assert.is((await call(t, token)).status, 200);
  t.clock.now -= 2700_000;
});

it('fair share: the first client stops at half while the second has room; the second can use the rest', async ({
  t,
}) => {
  const org = await createOrg(t.db.sql);
  await cli(t.db.sql, ['plan', 'set', '--org', org, '--plan', 'business', '--budget', '10']);
  const first = await getToken(t, await createClient(t.db.sql, org));
  const second = await getToken(t, await createClient(t.db.sql, org));
  for (let i = 0; i < 5; i++) assert.is((await call(t, first)).status, 200);
  const refused = await call(t, first);
  assert.is(refused.status, 429);
  assert.match((await refused.json()).detail, /fair share/);
  for (let i = 0; i < 5; i++) assert.is((await call(t, second)).status, 200, `second client call ${i + 1}`);
  assert.is((await call(t, second)).status, 429);
  assert.is((await call(t, first)).status, 429);
});

it('fair share ends once no other client has room', async ({ t }) => {
  const org = await createOrg(t.db.sql);
  await cli(t.db.sql, ['plan', 'set', '--org', org, '--plan', 'business', '--budget', '10']);
  const first = await getToken(t, await createClient(t.db.sql, org));
  const otherClient = await createClient(t.db.sql, org);
  await cli(t.db.sql, ['client', 'revoke', '--client', otherClient.clientId]);
  for (let i = 0; i < 10; i++)
    assert.is((await call(t, first)).status, 200, `call ${i + 1}: a revoked client is not active`);
});

it('the quota store down: 503 rate-limiter-unavailable, never an unmetered answer; /v1/me 200 with state unavailable', async ({
  t,
}) => {
  const { token } = await tenant(t);
  const own = await openDatabase({ databaseUrl: t.db.url, max: 1 });
  const logs: unknown[] = [];
  const app = createApp({ sql: own.sql, config: t.config, clock: () => t.clock.now, log: (l) => logs.push(l) });
  const fetch = (path: string) => app(new Request(BASE + path, bearer(token)));
  assert.is((await fetch('/v1/metrics')).status, 200);
  await own.sql.end();
  const res = await fetch('/v1/metrics');
  assert.is(res.status, 503);
  const body = await res.json();
  assert.is(body.type, `${BASE}/problems/rate-limiter-unavailable`);
  assert.ok(Number(res.headers.get('retry-after')) > 0);
  assert.is(body.retryAfterSeconds, Number(res.headers.get('retry-after')));
  const me = await fetch('/v1/me');
  assert.is(me.status, 200);
  assert.is((await me.json()).quota.state, 'unavailable');
});

it('a refund gives the charge back and updates the standing headers', async ({ t }) => {
  const { token, org, client } = await tenant(t);
  await cli(t.db.sql, ['plan', 'set', '--org', org, '--plan', 'business', '--budget', '5']);
  const meter = quota(t.db.sql, () => t.clock.now);
  const ctx = {
    principal: { organizationId: org, clientId: client.clientId },
    headers: {},
    log: {},
  } as unknown as Context;
  await chargeAs(meter, ctx, 3);
  const remaining = async () => (await (await t.fetch('/v1/me', bearer(token))).json()).quota.remaining;
  assert.is(await remaining(), 2);
  await meter.refund(ctx);
  assert.is(await remaining(), 5);
  assert.is(ctx.headers.ratelimit, '"hourly";r=5;t=2700');
  await meter.refund(ctx);
  assert.is(await remaining(), 5, 'a second refund gives nothing more');
});

const standingOf = async (sql: Sql, org: string, clientId: string) => {
  const [row] =
    await sql`select w.used as window, (select used from quota_client_usage where client_id = ${clientId}) as client
    from quota_windows w where w.organization_id = ${org}`;
  return { ...row };
};

it('concurrent charges and refunds all succeed and net to zero', async ({ t }) => {
  const { org, client } = await tenant(t);
  const meter = quota(t.db.sql, () => t.clock.now);
  const contexts = Array.from(
    { length: 40 },
    () =>
      ({ principal: { organizationId: org, clientId: client.clientId }, headers: {}, log: {} }) as unknown as Context,
  );
  // Charges and refunds interleave: half the requests are refunded while the others are still charging.
  await Promise.all(
    contexts.map(async (ctx, i) => {
      await chargeAs(meter, ctx, 3);
      if (i % 2 === 0) await meter.refund(ctx);
    }),
  );
  await Promise.all(contexts.filter((_, i) => i % 2 === 1).map((ctx) => meter.refund(ctx)));
  // Forty charges at once take a lease; refunds of leased charges go back into it, and closing gives it back.
  await meter.close();
  assert.equal(await standingOf(t.db.sql, org, client.clientId), { window: 0, client: 0 });
});

it('a lease that ran out just before shutdown is given back before close resolves', async ({ t }) => {
  const { org, client } = await tenant(t);
  // Store calls wait at the gate once it is set: the expired lease's refund is still on its way when close is called.
  let gate: Promise<void> | undefined;
  let open = () => {};
  const meter = quota(
    t.db.sql,
    () => t.clock.now,
    (work) => (gate ?? Promise.resolve()).then(() => work(t.db.sql)),
  );
  const contexts = Array.from({ length: 40 }, () => meterContext(org, client.clientId));
  await Promise.all(contexts.map((ctx) => chargeAs(meter, ctx, 3)));
  const leased = await standingOf(t.db.sql, org, client.clientId);
  assert.ok(leased.window > 40 * 3, 'forty charges at once took a lease');
  gate = new Promise((resolve) => (open = resolve));
  // Past the lease's quarter second: it ends, and its refund waits at the gate.
  await new Promise((resolve) => setTimeout(resolve, 400));
  const closed = meter.close();
  setTimeout(open, 50);
  await closed;
  assert.equal(await standingOf(t.db.sql, org, client.clientId), { window: 40 * 3, client: 40 * 3 });
});

const meterContext = (org: string, clientId: string) =>
  ({ principal: { organizationId: org, clientId }, headers: {}, log: {} }) as unknown as Context;

it("a refund takes the window row before the client's usage row, as a charge does, so the two never deadlock", async ({
  t,
}) => {
  if (
    skipped(
      !onPostgres,
      'quota',
      'a refund takes the window row first',
      'needs PostgreSQL: needs three connections at once; the embedded database runs one statement at a time',
    )
  )
    return;
  const { org, client } = await tenant(t);
  const meter = quota(t.db.sql, () => t.clock.now);
  const ctx = meterContext(org, client.clientId);
  await chargeAs(meter, ctx, 3);
  // Another transaction holds the window row, as a charge in flight does.
  const holder = await t.db.sql.reserve();
  await holder`begin`;
  await holder`select 1 from quota_windows where organization_id = ${org} for update`;
  const refund = meter.refund(ctx);
  await new Promise((r) => setTimeout(r, 300));
  // While the refund waits for the window, the client's usage row must still be free for the charge to take.
  const free = await t.db
    .sql`select used from quota_client_usage where client_id = ${client.clientId} for update skip locked`;
  await holder`rollback`;
  holder.release();
  await refund;
  assert.is(free.length, 1, "the refund locked the client's usage row before the window row: the reverse of a charge");
  assert.is(ctx.headers.ratelimit, '"hourly";r=10000;t=2700');
});

/** The pool, counting the statements sent through it; `hold` keeps the first one from ever being answered. */
function countingSql(sql: Sql, options: { hold?: boolean } = {}) {
  const counted = { calls: 0, params: [] as unknown[][], sql: undefined as unknown as Sql };
  counted.sql = {
    unsafe: (...args: Parameters<Sql['unsafe']>) => {
      counted.calls++;
      counted.params.push((args[1] ?? []) as unknown[]);
      return options.hold && counted.calls === 1 ? new Promise(() => {}) : sql.unsafe(...args);
    },
  } as unknown as Sql;
  return counted;
}

it('charges that arrive together share one call to the store, each with its own outcome and standing', async ({
  t,
}) => {
  const { org, client } = await tenant(t);
  await cli(t.db.sql, ['plan', 'set', '--org', org, '--plan', 'business', '--budget', '25']);
  const counted = countingSql(t.db.sql);
  const meter = quota(counted.sql, () => t.clock.now);
  const contexts = Array.from({ length: 40 }, () => meterContext(org, client.clientId));
  const outcomes = await Promise.all(
    contexts.map((ctx) =>
      Promise.resolve(chargeAs(meter, ctx, 1)).then(
        () => 'ok',
        (e: ApiError) => e.type,
      ),
    ),
  );
  assert.ok(counted.calls <= 3, `${counted.calls} calls for 40 charges`);
  assert.is(outcomes.filter((o) => o === 'ok').length, 25);
  assert.is(outcomes.filter((o) => o === 'rate-limit-exceeded').length, 15);
  // Each charge that went through saw its own standing: 24 down to 0 remaining, every one once.
  const remaining = contexts
    .filter((_, i) => outcomes[i] === 'ok')
    .map((ctx) => Number(/r=(\d+)/.exec(ctx.headers.ratelimit)![1]));
  assert.equal(
    remaining.sort((a, b) => a - b),
    Array.from({ length: 25 }, (_, i) => i),
  );
  const [row] = await t.db.sql`select used from quota_windows where organization_id = ${org}`;
  assert.is(row.used, 25);
});

it('a batch applies each charge in order, fair share included, exactly as one at a time', async ({ t }) => {
  const { org, client } = await tenant(t);
  const other = await createClient(t.db.sql, org, { name: 'dashboard' });
  await cli(t.db.sql, ['plan', 'set', '--org', org, '--plan', 'business', '--budget', '10']);
  const a = client.clientId;
  const b = other.clientId;
  const noLeases = [0, 0, 0, 0, 0, 0, 0, 0];
  const rows = await t.db
    .sql`select outcome, used from charge_quota_leasing(${org}, ${new Date(windowStart(t.clock.now))}, ${[a, a, a, a, a, a, b, b]}, ${[1, 1, 1, 1, 1, 1, 3, 2]}, ${noLeases})`;
  assert.equal(
    rows.map((r) => `${r.outcome}:${r.used}`),
    ['ok:1', 'ok:2', 'ok:3', 'ok:4', 'ok:5', 'fair-share:5', 'ok:8', 'ok:10'],
  );
});

it('a busy client takes a lease: fewer calls, every charge counted, and the unspent units go back on close', async ({
  t,
}) => {
  const { org, client } = await tenant(t);
  const counted = countingSql(t.db.sql);
  const meter = quota(counted.sql, () => t.clock.now);
  let ok = 0;
  for (let wave = 0; wave < 5; wave++) {
    await Promise.all(
      Array.from({ length: 40 }, () =>
        Promise.resolve(chargeAs(meter, meterContext(org, client.clientId), 1)).then(() => ok++),
      ),
    );
  }
  assert.is(ok, 200);
  // A batch of one, then batches that each take a lease of up to 100 units: far fewer calls than waves of 40 alone.
  assert.ok(counted.calls <= 8, `${counted.calls} calls for 200 charges`);
  const held = await standingOf(t.db.sql, org, client.clientId);
  assert.ok(held.window > 200 && held.window === held.client, `the store counts the lease: ${JSON.stringify(held)}`);
  await meter.close();
  assert.equal(await standingOf(t.db.sql, org, client.clientId), { window: 200, client: 200 });
});

it('a lease running low is renewed ahead, so a busy client keeps spending without waiting on the store', async ({
  t,
}) => {
  const { org, client } = await tenant(t);
  const counted = countingSql(t.db.sql);
  const meter = quota(counted.sql, () => t.clock.now);
  await Promise.all(Array.from({ length: 40 }, () => chargeAs(meter, meterContext(org, client.clientId), 1)));
  const before = counted.calls;
  // One at a time now: without renewals each charge past the first lease would be a call of its own.
  for (let i = 0; i < 150; i++) await chargeAs(meter, meterContext(org, client.clientId), 1);
  assert.ok(counted.calls - before <= 5, `${counted.calls - before} calls for 150 charges`);
  await meter.close();
  assert.equal(await standingOf(t.db.sql, org, client.clientId), { window: 190, client: 190 });
});

it('a client whose requests outrun its lease asks for twice as much each time, up to 1,600 units, and starts again at 100 once quiet', async ({
  t,
}) => {
  const { org, client } = await tenant(t);
  await cli(t.db.sql, ['plan', 'set', '--org', org, '--plan', 'business', '--budget', '1000000']);
  const counted = countingSql(t.db.sql);
  const meter = quota(counted.sql, () => t.clock.now);
  // charge-quota-batch's fifth parameter: what each charge asks to lease after it.
  const largestAsk = () =>
    Math.max(0, ...counted.params.flatMap((p) => (Array.isArray(p[4]) ? (p[4] as number[]) : [])));
  const wave = (n: number) =>
    Promise.all(Array.from({ length: n }, () => chargeAs(meter, meterContext(org, client.clientId), 1)));
  await wave(40);
  assert.is(largestAsk(), 100);
  // Waves far larger than any lease: each finds the lease empty before its renewal comes back.
  const seen: number[] = [];
  for (let i = 0; i < 8; i++) {
    await wave(4000);
    seen.push(largestAsk());
  }
  assert.ok(seen.includes(200) || seen.includes(400), `grew by doubling: ${seen}`);
  assert.is(largestAsk(), 1600);
  // Quiet past the lease's quarter second: it is given back, and the next busy spell starts small.
  await new Promise((r) => setTimeout(r, 400));
  counted.params.length = 0;
  await wave(40);
  assert.is(largestAsk(), 100);
  await meter.close();
  assert.equal(await standingOf(t.db.sql, org, client.clientId), { window: 32080, client: 32080 });
});

it('a refund of a leased charge goes back into the lease, with no call to the store', async ({ t }) => {
  const { org, client } = await tenant(t);
  const counted = countingSql(t.db.sql);
  const meter = quota(counted.sql, () => t.clock.now);
  await Promise.all(Array.from({ length: 40 }, () => chargeAs(meter, meterContext(org, client.clientId), 1)));
  const leased = Array.from({ length: 10 }, () => meterContext(org, client.clientId));
  for (const ctx of leased) await chargeAs(meter, ctx, 1);
  assert.ok(
    leased.every((ctx) => ctx.charged?.charge.leased),
    'served from the lease',
  );
  const before = counted.calls;
  for (const ctx of leased) await meter.refund(ctx);
  assert.is(counted.calls, before, 'no refund went to the store');
  assert.is(leased[9].headers.ratelimit, '"hourly";r=9960;t=2700');
  await meter.close();
  assert.equal(await standingOf(t.db.sql, org, client.clientId), { window: 40, client: 40 });
});

it('unspent lease units go back by themselves within a quarter of a second', async ({ t }) => {
  const { org, client } = await tenant(t);
  const meter = quota(t.db.sql, () => t.clock.now);
  await Promise.all(Array.from({ length: 40 }, () => chargeAs(meter, meterContext(org, client.clientId), 1)));
  assert.ok((await standingOf(t.db.sql, org, client.clientId)).window > 40, 'a lease was taken');
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(await standingOf(t.db.sql, org, client.clientId), { window: 40, client: 40 });
});

it('with leases the window never passes the budget, and every unit is spent or given back', async ({ t }) => {
  const { org, client } = await tenant(t);
  await cli(t.db.sql, ['plan', 'set', '--org', org, '--plan', 'business', '--budget', '3000']);
  const meter = quota(t.db.sql, () => t.clock.now);
  let ok = 0;
  let refused = 0;
  for (let wave = 0; wave < 32; wave++) {
    await Promise.all(
      Array.from({ length: 100 }, () =>
        Promise.resolve(chargeAs(meter, meterContext(org, client.clientId), 1)).then(
          () => ok++,
          (e: ApiError) => (assert.is(e.type, 'rate-limit-exceeded'), refused++),
        ),
      ),
    );
    assert.ok((await standingOf(t.db.sql, org, client.clientId)).window <= 3000);
  }
  assert.is(ok + refused, 3200);
  assert.ok(ok <= 3000 && ok >= 3000 - 100, `${ok} served of a budget of 3000`);
  await meter.close();
  assert.equal(await standingOf(t.db.sql, org, client.clientId), { window: ok, client: ok });
});

it('a lease is sized to stay clear of the budget and of half of it, and is not taken for a small budget', async ({
  t,
}) => {
  const { org, client } = await tenant(t);
  await createClient(t.db.sql, org, { name: 'dashboard' });
  // Each case in a window of its own.
  const windowAt = (hours: number) => new Date(windowStart(t.clock.now) + hours * 3600_000);
  const charge = async (budget: number, hours: number, asks: number[]) => {
    await cli(t.db.sql, ['plan', 'set', '--org', org, '--plan', 'business', '--budget', String(budget)]);
    const rows = await t.db.sql`select outcome, used, leased from charge_quota_leasing(${org}, ${windowAt(hours)},
      ${asks.map(() => client.clientId)}, ${asks.map(() => 1)}, ${asks})`;
    return rows.map((r) => `${r.outcome}:${r.used}:${r.leased}`);
  };
  // Budget 100 000: a 64th of what is left before half the budget is 781, so the whole 100 asked is leased.
  assert.equal(await charge(100_000, 0, [0, 100]), ['ok:1:0', 'ok:102:100']);
  // Budget 1 000: half is 500, and (500 - 1) / 64 is 7 units.
  assert.equal(await charge(1000, 1, [100]), ['ok:8:7']);
  // Near half the budget (490 of 500: 10 / 64 is 0), none.
  await t.db
    .sql`update quota_client_usage set used = 490 where client_id = ${client.clientId} and window_start = ${windowAt(1)}`;
  await t.db.sql`update quota_windows set used = 490 where organization_id = ${org} and window_start = ${windowAt(1)}`;
  assert.equal(await charge(1000, 1, [100]), ['ok:491:0']);
  // A budget of 100: (100 - 1) / 64 is 1, too few to lease.
  assert.equal(await charge(100, 2, [100]), ['ok:1:0']);
});

it('/v1/me right after a burst reads what was spent, not what this process holds leased', async ({ t }) => {
  const { token } = await tenant(t);
  const statuses = await Promise.all(Array.from({ length: 40 }, () => call(t, token).then((r) => r.status)));
  assert.equal(
    statuses,
    statuses.map(() => 200),
  );
  const me = await (await t.fetch('/v1/me', bearer(token))).json();
  assert.is(me.quota.remaining, 10000 - 40);
});

it('a charge held on a locked window past its time is cancelled by PostgreSQL: the 503 is never charged later', async ({
  t,
}) => {
  if (
    skipped(
      !onPostgres,
      'quota',
      'a 503 costs nothing',
      'needs PostgreSQL: the embedded database has no statement timeout to enforce',
    )
  )
    return;
  const { org, client } = await tenant(t);
  // The server's shared pool, as main.ts opens it: statements end on the server after 2.5 s.
  const db = await openDatabase({ databaseUrl: t.db.url, max: 2, statementTimeoutMs: 2500 });
  const blocker = await t.db.sql.reserve();
  try {
    const meter = quota(db.sql, () => t.clock.now);
    await chargeAs(meter, meterContext(org, client.clientId), 1);
    const used = async () =>
      (await t.db.sql`select used from quota_windows where organization_id = ${org}`)[0].used as number;
    const before = await used();
    await blocker`begin`;
    await blocker`select * from quota_windows where organization_id = ${org} for update`;
    const refused = await Promise.resolve(chargeAs(meter, meterContext(org, client.clientId), 1)).then(
      () => 'ok',
      (e: ApiError) => e.type,
    );
    assert.is(refused, 'rate-limiter-unavailable');
    await new Promise((r) => setTimeout(r, 700));
    await blocker`commit`;
    await new Promise((r) => setTimeout(r, 300));
    assert.is(await used(), before, 'the refused charge was not applied once the lock went');
    await meter.close();
  } finally {
    await blocker`rollback`.catch(() => {});
    blocker.release();
    await db.close();
  }
});

it('a call the store never answers fails its charges, and the next charges go through', async ({ t }) => {
  const { org, client } = await tenant(t);
  const counted = countingSql(t.db.sql, { hold: true });
  const meter = quota(counted.sql, () => t.clock.now);
  const stuck = await Promise.resolve(chargeAs(meter, meterContext(org, client.clientId), 1)).then(
    () => 'ok',
    (e: ApiError) => e.type,
  );
  assert.is(stuck, 'rate-limiter-unavailable');
  const ctx = meterContext(org, client.clientId);
  await chargeAs(meter, ctx, 1);
  assert.is(ctx.charged?.charge.cost, 1);
});

it.run();

// ---

const order = suite<{ t: TestApp }>('order of checks (docs/decisions.md §4)');
order.before(async (ctx) => {
  ctx.t = await testApp();
});
order.after(async (ctx) => ctx.t.close());

const typeOf = async (res: Response) => `${res.status} ${(await res.json()).type.split('/').pop()}`;

order('authenticate before plan: a bad token on a starter plan is 401', async ({ t }) => {
  assert.is(await typeOf(await t.fetch('/v1/metrics', bearer('garbage'))), '401 invalid-token');
});

order('plan before lock and scope: a locked starter plan without the scope is plan-feature-required', async ({ t }) => {
  const { token, org } = await tenant(t, { plan: 'starter', scopes: 'segments:read' });
  await cli(t.db.sql, ['subscription', 'lock', '--org', org]);
  assert.is(await typeOf(await t.fetch('/v1/metrics', bearer(token))), '403 plan-feature-required');
});

order('lock before scope: a locked subscription without the scope is subscription-locked', async ({ t }) => {
  const { token, org } = await tenant(t, { scopes: 'segments:read' });
  await cli(t.db.sql, ['subscription', 'lock', '--org', org]);
  assert.is(await typeOf(await t.fetch('/v1/metrics', bearer(token))), '403 subscription-locked');
});

order(
  'scope before charge: a spent budget without the scope is insufficient-scope, and costs nothing',
  async ({ t }) => {
    const { token, org } = await tenant(t, { scopes: 'segments:read' });
    await cli(t.db.sql, ['plan', 'set', '--org', org, '--plan', 'business', '--budget', '0']);
    const res = await t.fetch('/v1/metrics', bearer(token));
    assert.is(res.headers.get('www-authenticate'), 'Bearer error="insufficient_scope", scope="reports:read"');
    const body = await res.json();
    assert.is(`${res.status} ${body.type.split('/').pop()}`, '403 insufficient-scope');
    assert.match(body.detail, 'reports:read');
  },
);

order('charge before parameters: a spent budget with a bad pageSize is 429', async ({ t }) => {
  const { token, org } = await tenant(t);
  await cli(t.db.sql, ['plan', 'set', '--org', org, '--plan', 'business', '--budget', '0']);
  assert.is(await typeOf(await t.fetch('/v1/metrics?pageSize=999', bearer(token))), '429 rate-limit-exceeded');
});

order.run();

// ---

const processes = suite('quota across processes');

/** Two server processes on one fresh database, a client at the budget given, and 300 concurrent requests split between them. */
async function burstOnTwoServers(
  budget: number,
  check: (statuses: number[], servers: RunningServer[], t: TestApp, org: string) => Promise<void>,
) {
  const t = await testApp();
  const servers: RunningServer[] = [];
  try {
    const org = await createOrg(t.db.sql);
    await cli(t.db.sql, ['plan', 'set', '--org', org, '--plan', 'business', '--budget', String(budget)]);
    const client = await createClient(t.db.sql, org);
    const env = { DATABASE_URL: t.db.url, BASE_URL: 'http://readout.test' };
    servers.push(await startServer(env), await startServer(env));
    const access_token = await tokenFrom(servers[0], client);
    const statuses = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        fetch(`${servers[i % 2].url}/v1/metrics`, { headers: { authorization: `Bearer ${access_token}` } }).then(
          async (r) => (await r.arrayBuffer(), r.status),
        ),
      ),
    );
    await check(statuses, servers, t, org);
  } finally {
    for (const server of servers) await server.stop();
    await t.close();
  }
}

const windowUsed = async (t: TestApp, org: string) =>
  (await t.db.sql`select sum(used)::int as used from quota_windows where organization_id = ${org}`)[0].used;

processes('300 concurrent requests against a budget of 100 from two server processes: exactly 100 succeed', () =>
  burstOnTwoServers(100, async (statuses, _, t, org) => {
    const count = (s: number) => statuses.filter((x) => x === s).length;
    assert.equal({ ok: count(200), limited: count(429) }, { ok: 100, limited: 200 });
    assert.is(await windowUsed(t, org), 100);
  }),
);

processes('leases across two processes: every request served, and a shutdown gives back what was unspent', () =>
  burstOnTwoServers(100_000, async (statuses, servers, t, org) => {
    assert.equal(
      statuses,
      statuses.map(() => 200),
    );
    // At once, inside the leases' quarter second: only the shutdown can give the unspent units back.
    for (const server of servers.splice(0)) assert.is(await server.stop(), 0);
    assert.is(await windowUsed(t, org), 300);
  }),
);

processes.run();
