// Behind a real PgBouncer in transaction pooling mode (DATABASE_POOL_MODE=transaction): each transaction may get a
// different server connection, so nothing may rely on a session. Answers through it equal the direct ones under
// concurrency, abandoned downloads and HEAD on exports; changedSince finds writes made through it; quota stays
// exact; a request past its deadline ends its own backend and no other; a start without the setting detects the
// pooler, and one set to session is refused with a line that names the setting.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import postgres from 'postgres';
import { createApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { migrate } from '../src/store/migrate.ts';
import { postgresPool, SHARED_STATEMENT_TIMEOUT_MS } from '../src/store/database.ts';
import { connectionOptionsOf, exclusivePool } from '../src/store/exclusive.ts';
import { query } from '../src/store/queries.ts';
import {
  pgbouncerBin,
  postgresBin,
  startCluster,
  startPgBouncer,
  type Bouncer,
  type Cluster,
} from '../scripts/postgresServers.ts';
import { runSync, startServer } from './support/server.ts';
import { cli, createClient, createOrg } from './support/fixtures.ts';
import { skipped } from './support/skip.ts';

const it = suite('pgbouncer');
const BASE = 'http://readout.test';

type Demo = { organizationId: string; reportIds: string[]; clientId: string; clientSecret: string };

let cluster: Cluster | undefined;
let bouncer: Bouncer | undefined;
let direct: postgres.Sql | undefined;
const closing: (() => Promise<unknown>)[] = [];

const missing = () =>
  !postgresBin()
    ? "PostgreSQL's server binaries (Debian's postgresql package)"
    : !pgbouncerBin()
      ? "PgBouncer (Debian's pgbouncer package)"
      : undefined;

async function setUp() {
  if (cluster) return;
  cluster = await startCluster(0);
  // Three server connections for every client of the test: consecutive transactions of one client land on different
  // backends, and an export given up on holds one of them.
  bouncer = await startPgBouncer(cluster.root, cluster.primary, 3);
  direct = postgres(cluster.primary.url(), { max: 4, onnotice: () => {} });
  await migrate(direct);
}

/** The demo organization (one for the whole file: the demo is always the same organization). */
async function seed(): Promise<Demo> {
  const demo = await cli(direct!, ['demo']);
  await cli(direct!, ['plan', 'set', '--org', demo.organizationId, '--plan', 'enterprise', '--budget', '100000000']);
  return demo;
}

/**
 * An app whose every connection goes through PgBouncer, as main.ts opens it. terminated: given, it is told of every
 * backend the app ends.
 */
function pooledApp(env: Record<string, string> = {}, terminated?: number[]): App {
  const db = postgresPool({
    databaseUrl: bouncer!.url(),
    poolMode: 'transaction',
    asyncCommit: true,
    statementTimeoutMs: SHARED_STATEMENT_TIMEOUT_MS,
    max: 4,
  });
  const config = loadConfig({
    BASE_URL: BASE,
    DATABASE_URL: bouncer!.url(),
    DATABASE_POOL_MODE: 'transaction',
    HEAVY_CONNECTIONS: '4',
    ...env,
  });
  const end = (pid: number) => (terminated?.push(pid), query(db.sql, 'terminate-backend', { pid }));
  const heavy = exclusivePool(
    () => connectionOptionsOf(db.sql),
    config.heavyConnections,
    end,
    config.requestDeadlineMs + 5000,
    'transaction',
  );
  const app = createApp({ sql: db.sql, config, heavy });
  closing.push(() =>
    app
      .close()
      .then(() => heavy.close())
      .then(() => db.close()),
  );
  return app;
}

async function tokenOf(app: App, demo: Demo): Promise<string> {
  const body = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: demo.clientId,
    client_secret: demo.clientSecret,
  });
  return (await (await app(new Request(`${BASE}/api/connect/token`, { method: 'POST', body }))).json()).access_token;
}

it('answers through PgBouncer equal the direct ones, under concurrency, abandoned downloads and HEAD on exports', async () => {
  const why = missing();
  if (skipped(Boolean(why), 'pgbouncer', 'answers equal the direct ones', `needs ${why}`)) return;
  await setUp();
  const demo = await seed();
  const app = pooledApp({ HEAVY_PER_CLIENT: '100' });
  const directApp = createApp({
    sql: direct!,
    config: loadConfig({ BASE_URL: BASE, DATABASE_URL: cluster!.primary.url() }),
  });
  closing.push(() => directApp.close());
  const auth = { authorization: `Bearer ${await tokenOf(app, demo)}` };
  const report = `/v1/reports/${demo.reportIds[0]}`;
  const range = 'dateFrom=2026-01-01&dateTo=2026-03-31';
  const paths = [
    `${report}/data?groupBy=campaign&${range}`,
    `${report}/data?groupBy=month&${range}`,
    `${report}/data?groupBy=creative&${range}`,
    `${report}/data?groupBy=campaign&interval=day&${range}`,
    `${report}/data?groupBy=ad-account&interval=week&${range}`,
    `${report}/export.csv?groupBy=ad-account&${range}`,
    `${report}/export.csv?groupBy=creative&${range}`,
    `/v1/organizations/${demo.organizationId}/ad-accounts`,
    `/v1/organizations/${demo.organizationId}/campaigns?pageSize=5`,
    report,
    // A client's values, bound to settings of the exchange's own transaction (Lent.bind): each answer its own.
    `${report}/data?groupBy=campaign&filter=campaignName=@a&${range}`,
    `${report}/data?groupBy=campaign&filter=campaignName=@e&filter=spend>10&${range}`,
    `${report}/export.csv?groupBy=creative&nameFilter=a&${range}`,
  ];
  const text = async (which: App, path: string, init: RequestInit = {}) => {
    const res = await which(new Request(BASE + path, { ...init, headers: { ...auth, ...(init.headers as object) } }));
    return { status: res.status, body: await res.text() };
  };
  const expected = new Map<string, string>();
  for (const path of paths) {
    const answer = await text(directApp, path);
    assert.is(answer.status, 200, path);
    expected.set(path, answer.body);
  }

  const checkAll = async (rounds: number) => {
    const answers = await Promise.all(
      Array.from({ length: rounds * paths.length }, (_, i) =>
        text(app, paths[i % paths.length]).then((a) => ({ path: paths[i % paths.length], ...a })),
      ),
    );
    for (const { path, status, body } of answers) {
      assert.is(status, 200, `${path}: ${body.slice(0, 200)}`);
      assert.ok(body === expected.get(path), `${path} answered other rows through PgBouncer`);
    }
  };
  await checkAll(5);

  // Downloads given up after their first chunk, and HEAD on exports, while other requests run.
  const abandoned = Array.from({ length: 6 }, async (_, i) => {
    const res = await app(new Request(BASE + paths[3 + (i % 2)], { headers: auth }));
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
  });
  const heads = Array.from({ length: 6 }, async (_, i) => {
    const res = await app(new Request(BASE + paths[3 + (i % 2)], { method: 'HEAD', headers: auth }));
    assert.is(res.status, 200);
    await res.arrayBuffer();
  });
  await Promise.all([...abandoned, ...heads, checkAll(2)]);
  await checkAll(3);

  // An XLSX export and a not-modified answer (the charge refunded in its own transaction).
  const xlsx = await app(new Request(`${BASE}${report}/export.xlsx?groupBy=campaign&${range}`, { headers: auth }));
  assert.is(xlsx.status, 200);
  assert.equal([...new Uint8Array(await xlsx.arrayBuffer()).slice(0, 2)], [0x50, 0x4b]);
  const first = await app(new Request(BASE + paths[0], { headers: auth }));
  await first.arrayBuffer();
  const again = await app(
    new Request(BASE + paths[0], { headers: { ...auth, 'if-none-match': first.headers.get('etag')! } }),
  );
  assert.is(again.status, 304);
});

it('changedSince through PgBouncer: a write made through it comes back, and only it', async () => {
  const why = missing();
  if (skipped(Boolean(why), 'pgbouncer', 'changedSince through PgBouncer', `needs ${why}`)) return;
  await setUp();
  const demo = await seed();
  const app = pooledApp();
  const auth = { authorization: `Bearer ${await tokenOf(app, demo)}` };
  const url = `${BASE}/v1/reports/${demo.reportIds[0]}/data?groupBy=total&interval=day&dateFrom=2026-01-01&dateTo=2026-03-31`;
  const pull = async (since?: string) => {
    const res = await app(new Request(since ? `${url}&changedSince=${since}` : url, { headers: auth }));
    assert.is(res.status, 200);
    return {
      days: ((await res.json()).rows as { dimensions: { day: string } }[]).map((r) => r.dimensions.day),
      next: res.headers.get('next-changed-since')!,
    };
  };
  const since = (await pull()).next;
  // A writer through PgBouncer in transaction mode: its stamp and its lock live in its own transaction.
  const pooled = postgres(bouncer!.url(), { max: 2, prepare: false, onnotice: () => {} });
  closing.push(() => pooled.end());
  await pooled.begin(async (tx) => {
    await tx`update facts set clicks = clicks + 1 where organization_id = ${demo.organizationId} and day = '2026-02-03'`;
    await tx`update facts set clicks = clicks + 1 where organization_id = ${demo.organizationId} and day = '2026-02-04'`;
  });
  const changed = await pull(since);
  assert.equal(changed.days, ['2026-02-03', '2026-02-04']);
  assert.equal((await pull(changed.next)).days, []);
});

it('quota is exact across two apps through PgBouncer', async () => {
  const why = missing();
  if (skipped(Boolean(why), 'pgbouncer', 'quota is exact', `needs ${why}`)) return;
  await setUp();
  const budget = 25;
  const organizationId = await createOrg(direct!);
  await cli(direct!, ['plan', 'set', '--org', organizationId, '--plan', 'enterprise', '--budget', String(budget)]);
  const client = await createClient(direct!, organizationId);
  const apps = [pooledApp(), pooledApp()];
  const tokens = await Promise.all(apps.map((app) => tokenOf(app, { ...client, organizationId, reportIds: [] })));
  const statuses = await Promise.all(
    Array.from({ length: 70 }, async (_, i) => {
      const res = await apps[i % 2](
        new Request(`${BASE}/v1/organizations/${organizationId}/ad-accounts`, {
          headers: { authorization: `Bearer ${tokens[i % 2]}` },
        }),
      );
      await res.arrayBuffer();
      return res.status;
    }),
  );
  assert.is(statuses.filter((s) => s === 200).length, budget, `statuses: ${statuses.join(' ')}`);
  assert.is(statuses.filter((s) => s === 429).length, 70 - budget);
});

it('a charge stuck behind a locked quota window is ended by PostgreSQL, never charged after its 503', async () => {
  const why = missing();
  if (skipped(Boolean(why), 'pgbouncer', 'a stuck charge is ended', `needs ${why}`)) return;
  await setUp();
  // Both charges must fall in one hourly window.
  const toHour = 3_600_000 - (Date.now() % 3_600_000);
  if (toHour < 15_000) await new Promise((resolve) => setTimeout(resolve, toHour + 100));
  const organizationId = await createOrg(direct!);
  await cli(direct!, ['plan', 'set', '--org', organizationId, '--plan', 'enterprise', '--budget', '100']);
  const client = await createClient(direct!, organizationId);
  const app = pooledApp();
  const auth = { authorization: `Bearer ${await tokenOf(app, { ...client, organizationId, reportIds: [] })}` };
  const path = `${BASE}/v1/organizations/${organizationId}/ad-accounts`;
  const first = await app(new Request(path, { headers: auth }));
  assert.is(first.status, 200);
  await first.arrayBuffer();
  const used = async () =>
    (await direct!`select used from quota_windows where organization_id = ${organizationId}`)[0].used as number;
  assert.is(await used(), 1);

  // The window row held by another transaction: the charge waits on it until its SET LOCAL statement_timeout (2.5 s,
  // behind PgBouncer set in the charge's own transaction) ends it, before the caller's 503 at 3 s.
  const locker = postgres(cluster!.primary.url(), { max: 1, onnotice: () => {} });
  try {
    const reserved = await locker.reserve();
    await reserved`begin`;
    await reserved`select used from quota_windows where organization_id = ${organizationId} for update`;
    const stuck = await app(new Request(path, { headers: auth }));
    assert.is(stuck.status, 503);
    await stuck.arrayBuffer();
    await reserved`rollback`;
    reserved.release();
  } finally {
    await locker.end({ timeout: 1 });
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.is(await used(), 1, 'the stuck charge was never applied');
});

it('a request past its deadline ends its own backend and no other', async () => {
  const why = missing();
  if (skipped(Boolean(why), 'pgbouncer', 'the deadline ends its own backend', `needs ${why}`)) return;
  await setUp();
  const demo = await seed();
  const terminated: number[] = [];
  const app = pooledApp({ REQUEST_DEADLINE_MS: '1500' }, terminated);
  const auth = { authorization: `Bearer ${await tokenOf(app, demo)}` };
  const data = `${BASE}/v1/reports/${demo.reportIds[0]}/data?groupBy=campaign&dateFrom=2026-01-01&dateTo=2026-01-31`;
  const warm = await app(new Request(data, { headers: auth }));
  assert.is(warm.status, 200);
  await warm.arrayBuffer();

  const locker = postgres(cluster!.primary.url(), { max: 1, onnotice: () => {} });
  const alive = async (pid: number) => (await direct!`select 1 from pg_stat_activity where pid = ${pid}`).length > 0;
  try {
    let waiting: number | undefined;
    await locker.begin(async (tx) => {
      await tx`lock table facts, facts_monthly, facts_campaign_daily, facts_campaign_monthly in access exclusive mode`;
      const held = await tx`select pg_backend_pid() as pid`;
      const answer = app(new Request(data.replace('2026-01-31', '2026-01-30'), { headers: auth }));
      for (let i = 0; i < 100 && waiting === undefined; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        [waiting] = (await direct!`select pid from pg_locks where not granted and pid <> ${held[0].pid}`).map(
          (r) => r.pid as number,
        );
      }
      assert.ok(waiting, 'the data query waits on the lock');
      const res = await answer;
      assert.is(res.status, 503);
      await res.arrayBuffer();
      for (let i = 0; i < 100 && (await alive(waiting!)); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.not.ok(await alive(waiting!), 'the waiting backend was ended');
      // The backend the app ended is the one its own transaction held: PgBouncer gives the others to other clients.
      assert.equal(terminated, [waiting], 'the app ended that backend and no other');
    });
  } finally {
    await locker.end({ timeout: 1 });
  }
  const later = await app(new Request(data, { headers: auth }));
  assert.is(later.status, 200);
  await later.arrayBuffer();
});

it('a connection given up the moment it is lent is no unhandled rejection', async () => {
  const why = missing();
  if (skipped(Boolean(why), 'pgbouncer', 'a connection given up at once', `needs ${why}`)) return;
  await setUp();
  const db = postgresPool({ databaseUrl: bouncer!.url(), poolMode: 'transaction', max: 2 });
  const pool = exclusivePool(
    () => connectionOptionsOf(db.sql),
    4,
    (pid) => query(db.sql, 'terminate-backend', { pid }),
    10_000,
    'transaction',
  );
  const unheard: unknown[] = [];
  const listen = (reason: unknown) => unheard.push(reason);
  process.on('unhandledRejection', listen);
  try {
    // A HEAD on an export: the connection is lent (a new one each time: one given up is never reused), its first
    // exchange begun, and given up at once, while postgres.js may still be making the connection.
    for (let i = 0; i < 40; i++) {
      const lent = await pool.lend(new AbortController().signal);
      lent.busy();
      // Given up a little later each time, so that some land while the connection is being made.
      await new Promise((resolve) => setTimeout(resolve, i / 4));
      pool.giveBack(lent, false);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(unheard.map(String), []);
  } finally {
    process.off('unhandledRejection', listen);
    await pool.close();
    await db.close();
  }
});

it('a start through PgBouncer with DATABASE_POOL_MODE=session is one line and exit 2; unset, the pooler is detected', async () => {
  const why = missing();
  if (skipped(Boolean(why), 'pgbouncer', 'the start says what to set', `needs ${why}`)) return;
  await setUp();
  const refused = runSync('node', 'src/main.ts', [], {
    DATABASE_URL: bouncer!.url(),
    DATABASE_POOL_MODE: 'session',
    PORT: '0',
  });
  assert.is(refused.status, 2, refused.stderr);
  assert.match(
    refused.stderr,
    /refused a setting sent at startup .*set DATABASE_POOL_MODE=transaction, or leave it unset/,
  );
  assert.is(refused.stderr.trim().split('\n').length, 1);

  // Unset, as an operator who only points DATABASE_URL at PgBouncer leaves it: detected, and said on the start line.
  const server = await startServer({ DATABASE_URL: bouncer!.url(), HEAVY_PER_CLIENT: '20' });
  try {
    assert.match(server.output(), /"msg":"listening".*"pooling":"transaction"/);
    const demo = await seed();
    const token = await (
      await fetch(`${server.url}/api/connect/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: demo.clientId,
          client_secret: demo.clientSecret,
        }),
      })
    ).json();
    const answers = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const res = await fetch(
          `${server.url}/v1/reports/${demo.reportIds[0]}/data?groupBy=${i % 2 ? 'campaign' : 'month'}&dateFrom=2026-01-01&dateTo=2026-03-31`,
          { headers: { authorization: `Bearer ${token.access_token}` } },
        );
        await res.arrayBuffer();
        return res.status;
      }),
    );
    assert.equal(answers, Array(12).fill(200));
  } finally {
    assert.is(await server.stop(), 0);
  }
});

it.after(async () => {
  for (const close of closing.splice(0)) await close().catch(() => {});
  await direct?.end({ timeout: 1 });
  await bouncer?.stop();
  cluster?.remove();
});

it.run();
