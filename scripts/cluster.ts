// npm run cluster: the scaled-out install, proven on real servers on this machine. Starts, in temporary folders on
// free loopback ports, a primary, a streaming standby made with pg_basebackup, PgBouncer in transaction pooling mode
// in front of the primary, and three API processes (two through PgBouncer, one direct, all reading from the standby);
// then runs a bounded check of the guarantees and prints a table. Everything is torn down; the exit code is 1 if any
// check failed, 2 if the machine lacks PostgreSQL's server binaries or PgBouncer.
import { spawn, type ChildProcess } from 'node:child_process';
import process from 'node:process';
import postgres from 'postgres';
import { migrate } from '../src/store/migrate.ts';
import { runCommand } from '../src/cli/run.ts';
import {
  pgbouncerBin,
  postgresBin,
  startCluster,
  startPgBouncer,
  type Bouncer,
  type Cluster,
} from './postgresServers.ts';

const LIMIT_MS = 240_000;
const MAX_LAG_MS = 1000;
const ALL_SCOPES =
  'reports:read reports:data reports:export campaigns:read ad-accounts:read segments:read organizations:read';

type Api = { name: string; url: string; child: ChildProcess; output: () => string; stop(): Promise<void> };
type Row = { check: string; ok: boolean; detail: string };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(50);
  }
  return Date.now() - started;
}

/** One API process, as `npm start` runs it, on a free port; resolves once it logs "listening". */
async function startApi(name: string, env: Record<string, string>): Promise<Api> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start in 60 s:\n${out}`)), 60_000);
    const look = () => {
      const match = /"msg":"listening","url":"([^"]+)"/.exec(out);
      if (match) clearTimeout(timer), resolve(match[1]);
    };
    child.stdout!.on('data', look);
    void exited.then(() => (clearTimeout(timer), reject(new Error(`${name} exited:\n${out}`))));
  });
  return {
    name,
    url,
    child,
    output: () => out,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await Promise.race([exited, sleep(10_000).then(() => child.kill('SIGKILL'))]);
    },
  };
}

// What is running, so that the time limit can still tear it down.
let cluster: Cluster | undefined;
let bouncer: Bouncer | undefined;
const apis: Api[] = [];

async function main(): Promise<number> {
  const missing = !postgresBin()
    ? "PostgreSQL's server binaries (Debian's postgresql package)"
    : !pgbouncerBin()
      ? "PgBouncer (Debian's pgbouncer package)"
      : undefined;
  if (missing) {
    process.stderr.write(`cluster: needs ${missing}\n`);
    return 2;
  }
  const rows: Row[] = [];
  const record = async (check: string, run: () => Promise<string>) => {
    try {
      rows.push({ check, ok: true, detail: await run() });
    } catch (error) {
      rows.push({ check, ok: false, detail: error instanceof Error ? error.message.split('\n')[0] : String(error) });
    }
  };
  let direct: postgres.Sql | undefined;
  const started = Date.now();
  try {
    process.stderr.write('cluster: starting a primary, a standby, PgBouncer and three API processes\n');
    cluster = await startCluster(1);
    const { primary } = cluster;
    const standby = cluster.standbys[0];
    bouncer = await startPgBouncer(cluster.root, primary, 8);
    direct = postgres(primary.url(), { max: 2, onnotice: () => {} });
    await migrate(direct);
    const cli = async (argv: string[]) => {
      const outcome = await runCommand([...argv, '--json'], { sql: direct!, now: Date.now(), progress: () => {} });
      if (outcome.code !== 0) throw new Error(`readout ${argv.join(' ')}: ${outcome.stderr}`);
      return JSON.parse(outcome.stdout);
    };
    const demo = await cli(['demo']);
    await cli(['plan', 'set', '--org', demo.organizationId, '--plan', 'enterprise', '--budget', '100000000']);

    const shared = {
      BASE_URL: 'http://readout.cluster.test',
      DATABASE_REPLICA_URLS: standby.url(),
      REPLICA_MAX_LAG_MS: String(MAX_LAG_MS),
      HEAVY_PER_CLIENT: '50',
    };
    // One process names the pooling mode, the other leaves it to be detected.
    const pooled = { ...shared, DATABASE_URL: bouncer.url(), MIGRATION_DATABASE_URL: primary.url() };
    apis.push(
      ...(await Promise.all([
        startApi('api-1 (PgBouncer)', { ...pooled, DATABASE_POOL_MODE: 'transaction' }),
        startApi('api-2 (PgBouncer)', pooled),
        startApi('api-3 (direct)', { ...shared, DATABASE_URL: primary.url() }),
      ])),
    );

    const tokenFrom = async (api: Api, client: { clientId: string; clientSecret: string }) => {
      const res = await fetch(`${api.url}/api/connect/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: client.clientId,
          client_secret: client.clientSecret,
        }),
      });
      if (res.status !== 200) throw new Error(`token from ${api.name}: ${res.status} ${await res.text()}`);
      return (await res.json()).access_token as string;
    };
    const get = async (api: Api, path: string, token: string) => {
      const res = await fetch(api.url + path, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      return res.status;
    };
    const tokens = await Promise.all(apis.map((api) => tokenFrom(api, demo)));
    const data = `/v1/reports/${demo.reportIds[0]}/data?groupBy=campaign&dateFrom=2026-01-01&dateTo=2026-03-31`;
    const accounts = `/v1/organizations/${demo.organizationId}/ad-accounts`;
    // Reads of the fact tables on the standby: its statistics count only what it ran itself.
    const standbyReads = () =>
      Number(
        standby.psql(
          "select coalesce(sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)), 0) from pg_stat_user_tables where relname like 'facts%'",
        ),
      );
    const burst = async (count = 12) => {
      const statuses = await Promise.all(
        Array.from({ length: count }, (_, i) => get(apis[i % apis.length], data, tokens[i % apis.length])),
      );
      return statuses;
    };
    const allOk = (statuses: number[]) => statuses.every((s) => s === 200);
    // Statistics reach the standby's views at the end of each transaction, within a second (stats_fetch_consistency).
    const servedByStandby = async () => {
      const before = standbyReads();
      const statuses = await burst();
      if (!allOk(statuses)) throw new Error(`answers ${statuses.join(' ')}`);
      await sleep(1100);
      return standbyReads() - before;
    };

    await record('quota exact across the three processes', async () => {
      const budget = 60;
      const calls = 180;
      const org = (await cli(['org', 'create', '--name', 'Quota check', '--plan', 'enterprise'])).organizationId;
      await cli(['plan', 'set', '--org', org, '--plan', 'enterprise', '--budget', String(budget)]);
      const client = await cli([
        'client',
        'create',
        '--org',
        org,
        '--name',
        'warehouse',
        '--scopes',
        ALL_SCOPES,
        '--reports',
        'all',
        '--ad-accounts',
        'all',
      ]);
      const own = await Promise.all(apis.map((api) => tokenFrom(api, client)));
      const statuses = await Promise.all(
        Array.from({ length: calls }, (_, i) => get(apis[i % 3], `/v1/organizations/${org}/ad-accounts`, own[i % 3])),
      );
      const ok = statuses.filter((s) => s === 200).length;
      const refused = statuses.filter((s) => s === 429).length;
      const [window] = await direct!`select used from quota_windows where organization_id = ${org}`;
      if (ok !== budget || refused !== calls - budget)
        throw new Error(`${ok} × 200 and ${refused} × 429 of ${calls} against a budget of ${budget}`);
      return `${calls} concurrent calls, budget ${budget}: ${ok} × 200, ${refused} × 429; the window holds ${window.used}`;
    });

    await record('revocation within 1 s on every process', async () => {
      const client = await cli([
        'client',
        'create',
        '--org',
        demo.organizationId,
        '--name',
        'revoked',
        '--scopes',
        ALL_SCOPES,
        '--reports',
        'all',
        '--ad-accounts',
        'all',
      ]);
      const own = await Promise.all(apis.map((api) => tokenFrom(api, client)));
      for (const [i, api] of apis.entries())
        if ((await get(api, accounts, own[i])) !== 200)
          throw new Error(`${api.name} refused the client before its revocation`);
      await cli(['client', 'revoke', '--client', client.clientId]);
      const revokedAt = Date.now();
      const took = await Promise.all(
        apis.map(async (api, i) => {
          await until(
            `${api.name} to refuse the revoked client`,
            async () => (await get(api, accounts, own[i])) === 401,
            5000,
          );
          return Date.now() - revokedAt;
        }),
      );
      const slowest = Math.max(...took);
      if (slowest > 1000) throw new Error(`refused after ${took.join(', ')} ms`);
      return `401 on every process after ${took.join(', ')} ms`;
    });

    await record('report data served by the standby', async () => {
      // A burst whose charges the standby has not replayed yet is rightly read on the primary: asked again until one
      // is served by the standby, whose scans are the ones reported (a second burst could meet the same lag).
      let reads = 0;
      await until('the standby to serve reads', async () => (reads = await servedByStandby()) > 0, 20_000);
      return `12 data answers: ${reads} fact table scans in the standby's pg_stat_user_tables`;
    });

    await record('lagging standby skipped', async () => {
      standby.psql('select pg_wal_replay_pause()');
      const paused = Date.now();
      try {
        // A change the paused standby cannot have, and WAL written past it until the lag passes REPLICA_MAX_LAG_MS.
        const [account] =
          await direct!`update ad_accounts set last_fetched_at = now() where organization_id = ${demo.organizationId}
          and platform = 'google-ads' returning last_fetched_at`;
        for (let i = 0; i < 12; i++) {
          await direct!`select pg_switch_wal()`;
          await sleep(150);
        }
        const before = standbyReads();
        const res = await fetch(apis[0].url + data, { headers: { authorization: `Bearer ${tokens[0]}` } });
        const body = await res.json();
        const statuses = await burst();
        await sleep(1100);
        const ran = standbyReads() - before;
        if (res.status !== 200 || !allOk(statuses)) throw new Error(`answers ${res.status} ${statuses.join(' ')}`);
        if (ran !== 0) throw new Error(`the paused standby ran ${ran} fact table scans`);
        if (body.dataFreshness !== new Date(account.last_fetched_at).toISOString())
          throw new Error(`dataFreshness ${body.dataFreshness}, the primary has ${account.last_fetched_at}`);
        return `replay paused ${Date.now() - paused} ms: 13 answers from the primary, with the change; none on the standby`;
      } finally {
        standby.psql('select pg_wal_replay_resume()');
      }
    });

    await record('standby stopped and started', async () => {
      standby.stop();
      const down = await burst();
      if (!allOk(down)) throw new Error(`with the standby down: ${down.join(' ')}`);
      standby.start();
      const back = await until('reads to return to the standby', async () => (await servedByStandby()) > 0, 30_000);
      return `12 answers from the primary while it was down; back on the standby ${(back / 1000).toFixed(1)} s after its start`;
    });

    await record('primary stopped: metered paths fail closed', async () => {
      primary.stop();
      try {
        await sleep(300);
        const statuses = await Promise.all(
          apis.flatMap((api, i) => [
            get(api, accounts, tokens[i]),
            get(api, data, tokens[i]),
            get(api, `/v1/reports/${demo.reportIds[0]}`, tokens[i]),
          ]),
        );
        const served = statuses.filter((s) => s === 200).length;
        if (served > 0 || !statuses.every((s) => s === 503))
          throw new Error(`answers ${statuses.join(' ')} (a 200 would be unmetered)`);
        return `${statuses.length} metered calls with the standby up: all 503, none served`;
      } finally {
        primary.start();
      }
    });

    await record('service resumes after the primary returns', async () => {
      const took = await until(
        'every process to answer again',
        async () => (await Promise.all(apis.map((api, i) => get(api, accounts, tokens[i])))).every((s) => s === 200),
        30_000,
      );
      return `every process answers 200 ${(took / 1000).toFixed(1)} s after the primary's start`;
    });
  } catch (error) {
    rows.push({
      check: 'setting up',
      ok: false,
      detail: error instanceof Error ? error.message.split('\n').slice(0, 3).join(' | ') : String(error),
    });
  } finally {
    await Promise.all(apis.map((api) => api.stop()));
    await direct?.end({ timeout: 1 }).catch(() => {});
    await bouncer?.stop();
    cluster?.remove();
  }
  const width = Math.max(...rows.map((row) => row.check.length));
  process.stdout.write(`\n${'check'.padEnd(width)}  result  detail\n${'-'.repeat(width)}  ------  ------\n`);
  for (const row of rows)
    process.stdout.write(`${row.check.padEnd(width)}  ${row.ok ? 'pass  ' : 'FAIL  '}  ${row.detail}\n`);
  const failed = rows.filter((row) => !row.ok).length;
  process.stdout.write(
    `\n${rows.length - failed} passed, ${failed} failed in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
  );
  return failed ? 1 : 0;
}

const limit = setTimeout(() => {
  process.stderr.write(`cluster: not done in ${LIMIT_MS / 1000} s; tearing down\n`);
  for (const api of apis) api.child.kill('SIGKILL');
  void bouncer?.stop();
  cluster?.remove();
  process.exit(1);
}, LIMIT_MS);
const code = await main();
clearTimeout(limit);
process.exit(code);
