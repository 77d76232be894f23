// Reads on a real hot standby (DATABASE_REPLICA_URLS), made here with initdb and pg_basebackup: data, lists and
// definitions are served by the standby; a change on the primary is never answered from a standby that has not
// replayed it (replay paused: the primary answers, ETag and Last-Modified with it); a standby stopped, or further
// behind than REPLICA_MAX_LAG_MS, is skipped until it is back; tokens and revocation stay on the primary.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import postgres from 'postgres';
import { createApp, type App, type LogLine } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { migrate } from '../src/store/migrate.ts';
import { runCommand } from '../src/cli/run.ts';
import { postgresBin, startCluster, type Cluster } from '../scripts/postgresServers.ts';
import { skipped } from './support/skip.ts';
import { replicaReads } from '../src/store/replicas.ts';
import { queryAs } from '../src/store/queries.ts';
import type { ExclusivePool } from '../src/store/exclusive.ts';
import { createCounters } from '../src/serve/prometheus.ts';

const it = suite('replicas');
const BASE = 'http://readout.test';

async function until(what: string, check: () => Promise<boolean> | boolean, ms = 15_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

it('reads go to the standby, never behind the primary; a paused, lagging or stopped standby is skipped until it is back', async () => {
  if (
    skipped(
      !postgresBin(),
      'replicas',
      'a real standby',
      "needs PostgreSQL's server binaries (Debian's postgresql package) to make a primary and a standby",
    )
  )
    return;
  let cluster: Cluster | undefined;
  let app: App | undefined;
  // postgres.js drops the promise of its own first query on a new connection (porsager/postgres#1192): a connection
  // to the standby being made as it stops can reject with no one to hear it. The service logs such a rejection as a
  // last resort (main.ts); here each must be the stopped standby refusing, never anything else.
  const unheard: unknown[] = [];
  const listen = (reason: unknown) => unheard.push(reason);
  process.on('unhandledRejection', listen);
  const primarySql = () => postgres(cluster!.primary.url(), { max: 2, onnotice: () => {} });
  let sql: postgres.Sql | undefined;
  try {
    cluster = await startCluster(1);
    const [primary, standby] = [cluster.primary, cluster.standbys[0]];
    sql = primarySql();
    await migrate(sql);
    const seeded = await runCommand(['demo', '--json'], { sql, now: Date.now(), progress: () => {} });
    const demo = JSON.parse(seeded.stdout);
    const logs: LogLine[] = [];
    const config = loadConfig({
      BASE_URL: BASE,
      DATABASE_URL: primary.url(),
      DATABASE_REPLICA_URLS: standby.url(),
      REPLICA_MAX_LAG_MS: '1000',
      HEAVY_CONNECTIONS: '10',
    });
    const metrics = createCounters();
    app = createApp({ sql, config, log: (line) => logs.push(line), counters: metrics });
    const scraped = () => metrics.registry.metrics();
    const call = (path: string, init?: RequestInit) => app!(new Request(BASE + path, init));
    const token = (
      await (
        await call('/api/connect/token', {
          method: 'POST',
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: demo.clientId,
            client_secret: demo.clientSecret,
          }),
        })
      ).json()
    ).access_token;
    const auth = { headers: { authorization: `Bearer ${token}` } };
    const servedBy = () => logs.at(-1)!.standby ?? 'primary';
    const accounts = `/v1/organizations/${demo.organizationId}/ad-accounts`;
    const data = `/v1/reports/${demo.reportIds[0]}/data?groupBy=campaign&dateFrom=2026-01-01&dateTo=2026-01-31`;

    // Once the standby has replayed the seed and been watched, reads go to it.
    await until(
      'the standby to be used',
      async () => (await call(accounts, auth)).status === 200 && servedBy() !== 'primary',
    );
    assert.is(servedBy(), `127.0.0.1:${standby.port}/postgres`);
    const named = `127.0.0.1:${standby.port}/postgres`;
    assert.match(await scraped(), `readout_standby_usable{standby="${named}"} 1`);
    assert.match(await scraped(), new RegExp(`readout_standby_lag_seconds\\{standby="${named}"\\} [0-9.e-]+`));
    assert.match(await scraped(), `readout_db_pool_size{pool="heavy ${named}"} 10`);
    // Each charge is a write on the primary, which a read waits at most 20 ms for the standby to replay before it goes
    // to the primary instead: on a loaded machine a request may find it a little behind, and the next one not.
    await until('report data from the standby', async () => {
      const answer = await call(data, auth);
      assert.is(answer.status, 200);
      await answer.arrayBuffer();
      return servedBy() === named;
    });
    // get-report-fingerprint: a standby's snapshot does not list the transactions still running, so none is given to
    // reuse a scope by, and the fingerprint decides.
    const onStandby = postgres(standby.url(), { max: 1, onnotice: () => {} });
    try {
      const scope = {
        report: demo.reportIds[0],
        org: demo.organizationId,
        reportsAll: true,
        reportIds: [],
        adAccountsAll: true,
        adAccountIds: [],
        snapshot: null,
      };
      const [fromStandby] = await queryAs<{ snapshot: string | null }>(onStandby, 'get-report-fingerprint', scope);
      assert.is(fromStandby.snapshot, null);
      const [fromPrimary] = await queryAs<{ snapshot: string | null }>(sql, 'get-report-fingerprint', scope);
      assert.type(fromPrimary.snapshot, 'string');
    } finally {
      await onStandby.end();
    }
    await until(
      'a definition from the standby',
      async () => (await call(`/v1/reports/${demo.reportIds[0]}`, auth)).status === 200 && servedBy() === named,
    );
    assert.is((await call('/v1/me', auth)).status, 200);
    assert.is(servedBy(), 'primary', '/v1/me reads the primary');

    // Replay paused: a change on the primary is answered at once, by the primary, with the ETag of what it serves.
    standby.psql('select pg_wal_replay_pause()');
    const [account] =
      await sql`update ad_accounts set name = 'Renamed on the primary', last_fetched_at = now() where organization_id = ${demo.organizationId}
      and platform = 'google-ads' returning id, last_fetched_at`;
    const renamed = await (await call(accounts, auth)).json();
    assert.is(servedBy(), 'primary', 'the standby has not replayed the change');
    assert.ok(renamed.data.some((a: { name: string }) => a.name === 'Renamed on the primary'));
    const fresh = await call(data, auth);
    assert.is(servedBy(), 'primary');
    const body = await fresh.json();
    assert.is(body.dataFreshness, new Date(account.last_fetched_at).toISOString(), 'the freshness of the rows served');
    assert.is(fresh.headers.get('last-modified'), new Date(account.last_fetched_at).toUTCString());
    const etag = fresh.headers.get('etag')!;

    // Still paused, and further behind than REPLICA_MAX_LAG_MS as the primary writes on: marked unusable, so not even
    // asked, until replay resumes.
    const watched = replicaReads(
      { name: 'primary', sql, heavy: {} as ExclusivePool },
      {
        urls: [standby.url()],
        maxLagMs: 1000,
        watchMs: 100,
        open: (url) => postgres(url, { max: 1, onnotice: () => {} }),
        heavy: () => ({ close: async () => {} }) as ExclusivePool,
      },
    );
    try {
      await until('the paused standby to count as lagging', async () => {
        await sql!`select pg_switch_wal()`;
        const [state] = watched.states();
        return !state.usable && (state.lagMs === null || state.lagMs > 1000);
      });
      await call(accounts, auth);
      assert.is(servedBy(), 'primary');
      standby.psql('select pg_wal_replay_resume()');
      await until('the standby to catch up', () => watched.states()[0].usable);
    } finally {
      await watched.close();
    }
    // Replay resumed: back to the standby, with the same answer and the same ETag.
    await until(
      'the standby to be used again',
      async () => (await call(data, auth)).status === 200 && servedBy() !== 'primary',
    );
    const again = await call(data, { headers: { ...auth.headers, 'if-none-match': etag } });
    assert.is(again.status, 304, 'the standby names the same data');

    // Stopped: the primary answers every read; started again, the standby is used again.
    standby.stop();
    for (let i = 0; i < 5; i++) {
      const res = await call(accounts, auth);
      assert.is(res.status, 200);
      await res.arrayBuffer();
    }
    await until(
      'reads to leave the stopped standby',
      async () => (await call(accounts, auth)).status === 200 && servedBy() === 'primary',
    );
    assert.match(await scraped(), `readout_standby_usable{standby="${named}"} 0`);
    const down = await call(data, auth);
    assert.is(down.status, 200);
    await down.arrayBuffer();
    standby.start();
    await until(
      'the standby to be used after its restart',
      async () => (await call(accounts, auth)).status === 200 && servedBy() !== 'primary',
      30_000,
    );
    for (const reason of unheard) {
      const { code, port } = reason as { code?: string; port?: number };
      // Refused while it is down, or closed under a connection still fetching its types as it stops.
      const stopping = code === 'ECONNREFUSED' || code === 'CONNECTION_CLOSED' || code === 'ECONNRESET';
      assert.ok(
        stopping && port === standby.port,
        `an unhandled rejection: ${String(reason)} (primary ${primary.port}, standby ${standby.port})`,
      );
    }
  } finally {
    await app?.close();
    await sql?.end({ timeout: 1 });
    cluster?.remove();
    process.off('unhandledRejection', listen);
  }
});

it.run();
