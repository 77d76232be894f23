// The changes feed through a hot standby (docs/decisions.md §6, changedSince; §1, standbys) when the primary commits
// asynchronously: such a commit is visible there before its WAL is flushed, while a read goes to a standby once it has
// replayed the flushed WAL. The writers' lock (migration 024) flushes a write of facts before it is visible, so a
// warehouse table kept by pulls while facts are restated equals a full pull at the end: no write is passed over.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import postgres from 'postgres';
import { createApp, type App, type LogLine } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { migrate } from '../src/store/migrate.ts';
import { postgresBin, startCluster, type Cluster } from '../scripts/postgresServers.ts';
import { skipped } from './support/skip.ts';
import { createClient, createOrg, tokenRequest } from './support/fixtures.ts';
import { HEADER } from './support/importFixture.ts';
import { runCommand } from '../src/cli/run.ts';

const it = suite('changes feed through a standby');
const BASE = 'http://readout.test';
const DAYS = 40;
const day = (n: number) => new Date(Date.parse('2026-01-01') + n * 86_400_000).toISOString().slice(0, 10);

type Row = { dimensions: Record<string, string>; metrics: Record<string, number | null> };
const keyOf = (row: Row) => `${row.dimensions.day} ${row.dimensions.campaignId}`;

it('with synchronous_commit off, a warehouse kept by changedSince pulls equals a full pull', async () => {
  if (
    skipped(
      !postgresBin(),
      'changes feed through a standby',
      'asynchronous commit',
      "needs PostgreSQL's server binaries (Debian's postgresql package) to make a primary and a standby",
    )
  )
    return;
  let cluster: Cluster | undefined;
  let app: App | undefined;
  let sql: postgres.Sql | undefined;
  let writer: postgres.Sql | undefined;
  try {
    cluster = await startCluster(1);
    const [primary, standby] = [cluster.primary, cluster.standbys[0]];
    // Asynchronous commit on the primary, with the WAL writer's pause long enough that reads land inside it.
    primary.psql("alter system set synchronous_commit = 'off'");
    primary.psql("alter system set wal_writer_delay = '400ms'");
    primary.psql('select pg_reload_conf()');
    sql = postgres(primary.url(), { max: 4, onnotice: () => {} });
    await migrate(sql);
    const org = await createOrg(sql);
    const lines = [HEADER];
    for (let n = 0; n < DAYS; n++) {
      for (const c of ['C1', 'C2'])
        lines.push(`${day(n)},google-ads,G1,Google,USD,${c},${c},K${c},Ad,text,100,10,5,0,0,0,0`);
    }
    const imported = await runCommand(['import', '--org', org, '--file', 'facts.csv'], {
      sql,
      now: Date.now(),
      progress: () => {},
      readStream: async function* () {
        yield new TextEncoder().encode(lines.join('\n'));
      },
      copy: true,
    });
    assert.is(imported.code, 0, imported.stderr);
    // The report as `readout apply` writes it, flushed before it is visible: other writes made with synchronous_commit
    // off may reach the standby late (docs/operations.md, read replicas), and a report without its account is empty.
    const report = await sql.begin(async (tx) => {
      await tx`set local synchronous_commit = local`;
      const [account] = await tx`select id from ad_accounts where organization_id = ${org}`;
      const [made] = await tx`insert into reports (organization_id, name, kind, currency, metrics, groupings)
        values (${org}, 'Feed', 'standard', 'USD', ${['clicks']}, ${['campaign']}) returning id`;
      await tx`insert into report_ad_accounts (organization_id, report_id, ad_account_id)
        values (${org}, ${made.id}, ${account.id})`;
      return made;
    });
    const client = await createClient(sql, org);

    const logs: LogLine[] = [];
    const config = loadConfig({
      BASE_URL: BASE,
      DATABASE_URL: primary.url(),
      DATABASE_REPLICA_URLS: standby.url(),
      REPLICA_MAX_LAG_MS: '5000',
    });
    app = createApp({ sql, config, log: (line) => logs.push(line) });
    const call = (path: string, init?: RequestInit) => app!(new Request(BASE + path, init));
    const tokenAnswer = await call(
      '/api/connect/token',
      tokenRequest({
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
      }),
    );
    const auth = { headers: { authorization: `Bearer ${(await tokenAnswer.json()).access_token}` } };
    const window = `dateFrom=${day(0)}&dateTo=${day(DAYS - 1)}`;
    const pull = async (since?: string) => {
      const after = since ? `&changedSince=${encodeURIComponent(since)}` : '';
      const res = await call(`/v1/reports/${report.id}/data?groupBy=campaign&interval=day&${window}${after}`, auth);
      assert.is(res.status, 200);
      return { rows: (await res.json()).rows as Row[], resume: res.headers.get('next-changed-since')! };
    };

    // The standby in use first, so the pulls below are served by it whenever it has caught up.
    const end = Date.now() + 15_000;
    while (!logs.some((l) => l.standby)) {
      assert.ok(Date.now() < end, 'the standby was never used');
      await pull();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    const table = new Map<string, Row>();
    let { rows, resume } = await pull();
    for (const row of rows) table.set(keyOf(row), row);
    // Restatements committed asynchronously on a connection of their own, while the warehouse pulls.
    writer = postgres(primary.url(), { max: 1, onnotice: () => {}, connection: { synchronous_commit: 'off' } });
    let writing = true;
    const restating = (async () => {
      for (let n = 1; writing && n <= 400; n++) {
        await writer!`update facts set clicks = clicks + 1 where organization_id = ${org} and day = ${day((n * 7) % DAYS)}`;
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
    })();
    let servedByStandby = 0;
    for (let n = 0; n < 60; n++) {
      ({ rows, resume } = await pull(resume));
      if (logs.at(-1)?.standby) servedByStandby++;
      for (const row of rows) table.set(keyOf(row), row);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    writing = false;
    await restating;
    // Every write committed: the last pull brings what is left.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    ({ rows, resume } = await pull(resume));
    for (const row of rows) table.set(keyOf(row), row);

    const full = (await pull()).rows;
    const stale = full.filter((row) => table.get(keyOf(row))?.metrics.clicks !== row.metrics.clicks);
    process.stdout.write(`  ${servedByStandby} of 60 pulls from the standby, ${stale.length} stale\n`);
    assert.ok(servedByStandby >= 10, `only ${servedByStandby} of 60 pulls were served by the standby`);
    assert.is(table.size, full.length);
    assert.equal(
      stale.map((r) => r.dimensions.day),
      [],
      `${stale.length} stale rows (${servedByStandby} of 60 pulls from the standby)`,
    );
  } finally {
    await app?.close();
    await writer?.end();
    await sql?.end();
    cluster?.remove();
  }
});

it.run();
