// npm run bench [-- --scale 0.1] [--duration 10] [--rounds 5] [--only
// http,data,periods,currencies,dashboards,exports,fair,replicas,footprint,import,growth]: builds the data set, starts the server, drives it with
// autocannon (and downloads the exports with curl) from another core, measures the floors in the same run, and prints a
// Markdown table with every target met or missed. BENCH_KEEP_LOGS=1 keeps the servers' output; BENCH_START replaces
// package.json's start command (to add a flag such as --trace-gc).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { runCommand } from '../src/cli/run.ts';
import type { Sql } from '../src/store/database.ts';
import { openDatabase } from '../src/store/open.ts';
import { migrate } from '../src/store/migrate.ts';
import { inlinedQueryText, queryAs } from '../src/store/queries.ts';
import { EXPORT_SETTINGS } from '../src/report/formats/copyStatement.ts';
import { groupingFile } from '../src/report/query.ts';
import postgres from 'postgres';
import {
  pgbouncerBin,
  postgresBin,
  startCluster,
  startPgBouncer,
  type Bouncer,
  type PostgresServer,
} from './postgresServers.ts';
import { importGrowth, importPart } from './benchImport.ts';

const flags = (() => {
  try {
    return parseArgs({
      options: {
        scale: { type: 'string', default: '1' },
        duration: { type: 'string', default: '10' },
        rounds: { type: 'string', default: '5' },
        only: { type: 'string', default: '' },
      },
      strict: true,
    }).values;
  } catch (error) {
    console.error(`bench: ${(error as Error).message}`);
    process.exit(2);
  }
})();
const number = (name: keyof typeof flags, value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) {
    console.error(`bench: --${name} must be a positive number, got "${value}"`);
    process.exit(2);
  }
  return n;
};
const scale = number('scale', flags.scale);
const duration = number('duration', flags.duration);
// The HTTP scenarios run this many times, interleaved, and each ratio is the median of the rounds' own ratios:
// this machine's throughput drifts by tens of percent within minutes.
const rounds = Math.max(1, Math.round(number('rounds', flags.rounds)));
// --only exports (or http, data): one part of the run, to iterate on it; the targets of the parts not run are skipped.
const only = flags.only;
type Part =
  | 'http'
  | 'data'
  | 'periods'
  | 'currencies'
  | 'dashboards'
  | 'exports'
  | 'fair'
  | 'replicas'
  | 'footprint'
  | 'import'
  | 'growth';
const runs = (part: Part) => only === '' || only.split(',').includes(part);
const embedded = scale < 1 || !process.env.DATABASE_URL;
if (!embedded && !process.env.DATABASE_URL)
  throw new Error('set DATABASE_URL, or run --scale 0.1 on the embedded database');
const cores = Number(spawnSync('nproc', { encoding: 'utf8' }).stdout.trim() || '1');
const pin = (core: number, cmd: string[]) => (cores > 1 ? ['taskset', '-c', String(core), ...cmd] : cmd);
const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

// --- processes -------------------------------------------------------------------------------------------------

type Proc = { child: ChildProcess; url: string; pid: number };

/** Every server started and not yet gone: stopped on the way out, however the bench ends. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGTERM');
});
// Interrupted (Ctrl-C, a timeout's SIGTERM), the bench exits through its exit handlers rather than dying with its
// servers left running.
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)
  process.on(signal, () => process.exit(code));

/**
 * Starts a server with its output going to a file, not a pipe: reading every request's log line would put the
 * bench's own work on the cores it measures. The URL is read from the file's "listening" line.
 */
async function start(cmd: string[], env: Record<string, string | undefined>): Promise<Proc> {
  const logFile = join(logDir, `${processes.length}-${cmd.at(-1)!.replace(/\W+/g, '-')}.log`);
  const fd = openSync(logFile, 'w');
  const childEnv = { ...process.env, ...env };
  for (const [key, value] of Object.entries(childEnv)) if (value === undefined) delete childEnv[key];
  const child = spawn(cmd[0], cmd.slice(1), { env: childEnv, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  running.add(child);
  let exited: number | null | undefined;
  child.on('exit', (code) => {
    exited = code;
    running.delete(child);
  });
  for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    const out = readFileSync(logFile, 'utf8');
    const match = /"msg":"listening","url":"([^"]+)"/.exec(out);
    if (match) return { child, url: match[1], pid: child.pid! };
    if (exited !== undefined) throw new Error(`${cmd.join(' ')} exited ${exited}: ${out.slice(-2000)}`);
  }
  child.kill('SIGTERM');
  throw new Error(`${cmd.join(' ')} did not say it was listening within 60 s; its output is in ${logFile}`);
}

const rssMb = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
  } catch {
    return 0;
  }
};

/** Samples a process's RSS while the work runs; returns the work's result and the peak. */
async function peakRss<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = rssMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 25);
  try {
    const result = await work();
    return { result, peak: Math.max(peak, rssMb(pid)) };
  } finally {
    clearInterval(timer);
  }
}

/** cpuPerRequest: the server's CPU time (every thread, user and system) over the run, in µs a request. */
type Load = {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  unexpected: number;
  peakRss: number;
  cpuPerRequest: number;
};

/** A process's CPU time so far, user and system, all its threads, in clock ticks (proc(5): utime, stime). */
const cpuTicks = (pid: number) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return Number.NaN;
  }
};
/** proc(5)'s clock ticks a second (USER_HZ): 100 on Linux wherever the bench runs. */
const TICKS_PER_SECOND = 100;

/** autocannon in its own process on the other core. */
async function load(
  url: string,
  pid: number,
  connections: number,
  headers: Record<string, string> = {},
  seconds = duration,
  expect = 200,
): Promise<Load> {
  // autocannon gives up on a request after 10 s by default; waiting past the server's own 30-s deadline instead
  // measures a slow answer as slow, and a request the server cuts off counts by its status.
  const args = [
    'node',
    'node_modules/autocannon/autocannon.js',
    '--json',
    '-c',
    String(connections),
    '-d',
    String(seconds),
    '-t',
    '40',
  ];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  args.push(url);
  const ticksBefore = cpuTicks(pid);
  const { result, peak } = await peakRss(
    pid,
    () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(pin(1, args)[0], pin(1, args).slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (c) => (out += c));
        child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`autocannon exited ${code}`))));
      }),
  );
  const r = JSON.parse(result);
  // Answers with any status other than the one expected count as errors (a 304 run expects 304, the rest 200).
  const statuses = (r.statusCodeStats ?? {}) as Record<string, { count: number }>;
  const unexpected = Object.entries(statuses).reduce(
    (n, [code, { count }]) => n + (code === String(expect) ? 0 : count),
    0,
  );
  // A scenario in which no request finished measured nothing: its zero latencies would read as fast, so it counts as
  // failed.
  const unfinished = r.requests.total === 0 ? 1 : 0;
  const measured = {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts + unfinished,
    unexpected,
    peakRss: peak,
    cpuPerRequest: (((cpuTicks(pid) - ticksBefore) / TICKS_PER_SECOND) * 1e6) / Math.max(r.requests.total, 1),
  };
  loads.push(measured);
  return measured;
}

/** Every load run, warm-ups included: any error in any of them fails the run. */
const loads: Load[] = [];

/** A figure from a run where any request failed measures the failures, not the service: its target is missed. */
const clean = (...runs: Load[]) => runs.every((r) => r.errors + r.unexpected === 0);
const errorNote = (...runs: Load[]) => (clean(...runs) ? '' : ' (from a run with errors)');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
/** The run of median throughput, with its own latencies. */
const medianRun = <T extends Load>(all: T[]) =>
  [...all].sort((a, b) => a.rps - b.rps)[Math.floor((all.length - 1) / 2)];

/** The same work as a closure, at a concurrency, for a while: the SQL floors. */
/** Issue 56's floor: each grouping's answer as a GROUP BY of the raw facts ($1 accounts, $2 from, $3 to). */
const NAIVE_BOUNDS: [string, number][] = [
  ['total', 100],
  ['month', 100],
  ['ad-account', 40],
  ['segment', 40],
  ['creative', 20],
  ['video', 20],
];
function naiveSql(groupBy: string): string {
  const sums = BASE_SUMS.map((name) => `sum(f.${name}) as ${name}`).join(', ');
  const key = {
    total: '',
    month: "date_trunc('month', f.day)",
    campaign: 'f.campaign_id',
    'ad-account': 'f.ad_account_id',
    segment: 'sc.segment_id',
    creative: 'f.creative_id',
    video: 'f.creative_id',
  }[groupBy];
  const join = {
    segment: 'join segment_campaigns sc on sc.campaign_id = f.campaign_id',
    video: "join creatives cr on cr.id = f.creative_id and cr.format = 'video'",
  }[groupBy as 'segment' | 'video'];
  return (
    `select ${key ? `${key} as key, ` : ''}${sums} from facts f ${join ?? ''} ` +
    `where f.ad_account_id = any($1::uuid[]) and f.day between $2 and $3${key ? ` group by ${key}` : ''}`
  );
}
const BASE_SUMS = [
  'impressions',
  'clicks',
  'spend',
  'conversions',
  'conversion_value',
  'video_views',
  'video_completions',
];

async function loop(concurrency: number, seconds: number, work: () => Promise<unknown>) {
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        await work();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99) };
}

const hasCurl = spawnSync('curl', ['--version']).status === 0;

/**
 * One download, timed, with the server's peak RSS; a download that fails or is cut counts as taking forever. It runs
 * in curl on the load's core, as autocannon does, where the machine has curl: read by fetch in this process, the
 * body's 165 MB cost 1.0-1.3 s of CPU on the cores PostgreSQL and the server use, curl's 0.1-0.2 s.
 */
async function download(url: string, token: string, pid: number) {
  const t0 = performance.now();
  const { result: bytes, peak } = await peakRss(pid, async () => {
    try {
      return hasCurl ? await curl(url, token) : await fetched(url, token);
    } catch (error) {
      log(
        `download failed after ${Math.round(performance.now() - t0)} ms: ${error instanceof Error ? error.message : error}`,
      );
      return -1;
    }
  });
  const seconds = bytes < 0 ? Infinity : (performance.now() - t0) / 1000;
  return { seconds, bytes, peak };
}

/** The body's length, read by curl on the load's core. */
function curl(url: string, token: string): Promise<number> {
  const cmd = pin(1, [
    'curl',
    '-sS',
    '-o',
    '/dev/null',
    '--max-time',
    '120',
    '-w',
    '%{http_code} %{size_download}',
    '-H',
    `authorization: Bearer ${token}`,
    url,
  ]);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd[0], cmd.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    // 'close', not 'exit': the output may still be unread when the process has exited.
    child.on('close', (code) => {
      const [status, size] = out.trim().split(' ');
      if (code === 0 && status === '200') resolve(Number(size));
      else reject(new Error(`curl exited ${code}: ${out.trim()}`));
    });
  });
}

/** The body's length, read in this process. */
async function fetched(url: string, token: string): Promise<number> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
  let n = 0;
  for await (const chunk of res.body!) n += chunk.length;
  return n;
}

/**
 * What the database alone takes to produce the CSV export's rows: read through a postgres.js cursor as the server
 * reads them, and (PostgreSQL only) written by PostgreSQL itself as CSV, with no per-row work in Node at all.
 */
async function exportFloors(sql: Sql, accounts: string[], day: string, embedded: boolean) {
  const params = [accounts, null, day, day, 'USD', null, false];
  let t0 = performance.now();
  // The files the server picks for this range (a day: the join-first one; for CSV, all in one currency, the one
  // read from facts directly) and, for COPY, the CSV export's own settings.
  const range = { from: day, to: day };
  for await (const _ of queryAs(sql, groupingFile('creative', range), params as never[]).cursor(1000));
  const cursor = (performance.now() - t0) / 1000;
  if (embedded) return { cursor };
  // COPY takes no parameters: the same query with them written in, as the server's CSV export writes them.
  const text = inlinedQueryText(groupingFile('creative', range, true), params as never[]);
  t0 = performance.now();
  for await (const _ of await sql.unsafe(`${EXPORT_SETTINGS}; copy (\n${text}\n) to stdout (format csv)`).readable());
  return { cursor, copy: (performance.now() - t0) / 1000 };
}

// --- data set --------------------------------------------------------------------------------------------------

async function cli(sql: Sql, argv: string[]) {
  const out = await runCommand([...argv, '--json'], { sql, now: Date.now(), progress: log });
  if (out.code !== 0) throw new Error(`${argv.join(' ')}: ${out.stderr}`);
  return JSON.parse(out.stdout);
}

/**
 * An organization named `name` with generated data and a report over all its accounts; made once, reused after.
 * currencies: the accounts' in turn (default USD); reportCurrency: the report's (default USD). Every organization has
 * the custom metric `engagement`, which the report does not save: a request asks for it.
 */
async function dataSet(
  sql: Sql,
  name: string,
  size: { accounts: number; campaigns: number; creatives: number; days: number },
  money: { currencies?: string[]; reportCurrency?: string } = {},
) {
  let [org] = await sql`select id from organizations where name = ${name}`;
  if (!org) org = { id: (await cli(sql, ['org', 'create', '--name', name, '--plan', 'enterprise'])).organizationId };
  await cli(sql, ['plan', 'set', '--org', org.id, '--plan', 'enterprise', '--budget', '100000000']);
  const [{ n }] = await sql`select count(*)::int as n from facts where organization_id = ${org.id}`;
  const expected = size.creatives * size.days;
  if (n < expected * 0.95) {
    log(`${name}: generating ${expected} fact rows`);
    const currencies = money.currencies ? ['--currencies', money.currencies.join(',')] : [];
    await cli(sql, [
      'generate',
      '--org',
      org.id,
      '--accounts',
      String(size.accounts),
      '--campaigns',
      String(size.campaigns),
      '--creatives',
      String(size.creatives),
      '--days',
      String(size.days),
      ...currencies,
    ]);
    if (money.currencies) await ecbRates(sql, size.days);
    // Measured now, the tables would still carry the generator's dead rows and no statistics until autovacuum
    // came round: the planner would guess the fact tables' sizes and a first run would time the wrong plans.
    log(`${name}: vacuum analyze`);
    await sql`vacuum analyze`;
  }
  let [report] = await sql`select id from reports where organization_id = ${org.id} and name = ${name}`;
  if (!report) {
    [report] = await sql`insert into reports (organization_id, name, kind, currency, metrics) values
      (${org.id}, ${name}, 'standard', ${money.reportCurrency ?? 'USD'}, ${['impressions', 'clicks', 'spend', 'conversions', 'ctr', 'cpc', 'cpa', 'roas']}) returning id`;
    await sql`insert into report_ad_accounts (organization_id, report_id, ad_account_id) select organization_id, ${report.id}, id from ad_accounts where organization_id = ${org.id}`;
    // A report in a new currency built its converted rollups (migration 019): analysed, as `readout apply` leaves them.
    await sql`analyze`;
  }
  await sql`insert into custom_metrics (organization_id, name, display_name, kind, unit, formula)
    values (${org.id}, 'engagement', 'Engagement rate', 'percent', 'percent', '(clicks + video_views) / impressions * 100') on conflict do nothing`;
  const accounts = (await sql`select id from ad_accounts where organization_id = ${org.id} order by id`).map(
    (r) => r.id as string,
  );
  // Allowed this report only: /v1/reports lists the one report whatever else the organization holds (segmentReport).
  const client = await benchClient(sql, org.id, report.id);
  return { org: org.id as string, report: report.id as string, accounts, client };
}

/**
 * Daily euro reference rates as the ECB publishes them (units per EUR, weekdays only), USD and GBP columns, from a
 * month before the facts' first day to today, loaded with `fx import` as an operator would.
 */
async function ecbRates(sql: Sql, days: number) {
  const lines = ['Date,USD,GBP,'];
  for (let d = days + 31; d >= 0; d--) {
    const day = new Date(Date.now() - d * 86_400_000);
    if (day.getUTCDay() === 0 || day.getUTCDay() === 6) continue;
    const wobble = Math.sin(d / 17) / 50;
    lines.push(`${day.toISOString().slice(0, 10)},${(1.1 + wobble).toFixed(4)},${(0.85 - wobble / 3).toFixed(4)},`);
  }
  const text = `${lines.join('\n')}\n`;
  const out = await runCommand(['fx', 'import', '--file', 'eurofxref-hist.csv', '--json'], {
    sql,
    now: Date.now(),
    progress: log,
    readText: async () => text,
  });
  if (out.code !== 0) throw new Error(`fx import: ${out.stderr}`);
}

const benchClient = (sql: Sql, org: string, report: string) =>
  cli(sql, [
    'client',
    'create',
    '--org',
    org,
    '--name',
    'bench',
    '--scopes',
    'reports:read reports:data reports:export',
    '--reports',
    report,
    '--ad-accounts',
    'all',
  ]);

const SEGMENTS = 20;

/**
 * A segment report over all of org's accounts, for the segment grouping: SEGMENTS segments, each campaign in two of
 * them (neighbours in id order), so every campaign counts twice. Made once, reused after; its own client.
 */
async function segmentReport(sql: Sql, org: string) {
  let [report] = await sql`select id from reports where organization_id = ${org} and kind = 'segment'`;
  if (!report) {
    report = await sql.begin(async (tx) => {
      await tx`insert into segments (organization_id, name) select ${org}, 'Bench segment ' || lpad(k::text, 2, '0') from generate_series(1, ${SEGMENTS}::int) k`;
      await tx`insert into segment_campaigns (organization_id, segment_id, campaign_id)
        select c.organization_id, s.id, c.id
        from (select id, organization_id, row_number() over (order by id) as n from campaigns where organization_id = ${org}) c
        join (select id, row_number() over (order by name) as k from segments where organization_id = ${org}) s
          on s.k = c.n % ${SEGMENTS}::int + 1 or s.k = (c.n + 1) % ${SEGMENTS}::int + 1`;
      const [made] = await tx`insert into reports (organization_id, name, kind, currency, metrics, groupings) values
        (${org}, 'Bench segments', 'segment', 'USD', ${['impressions', 'clicks', 'spend', 'conversions', 'ctr', 'cpc', 'cpa', 'roas']}, ${['total', 'segment', 'campaign', 'month']})
        returning id`;
      await tx`insert into report_ad_accounts (organization_id, report_id, ad_account_id) select organization_id, ${made.id}, id from ad_accounts where organization_id = ${org}`;
      await tx`insert into report_segments (organization_id, report_id, segment_id) select organization_id, ${made.id}, id from segments where organization_id = ${org}`;
      return made;
    });
  }
  // As `readout apply` does (analyze-catalogue.sql): planned blind, a segment answer outlasted the deadline.
  await sql`analyze segments, segment_campaigns, report_segments`;
  return { report: report.id as string, client: await benchClient(sql, org, report.id) };
}

async function tokenFor(base: string, client: { clientId: string; clientSecret: string }) {
  const res = await fetch(`${base}/api/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    }),
  });
  return (await res.json()).access_token as string;
}

// --- replicas ----------------------------------------------------------------------------------------------------

/** CPU seconds a process has used so far (/proc, 100 ticks a second); 0 once it is gone. */
function processCpu(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds used so far by a PostgreSQL server: its postmaster and every process it started. */
function serverCpu(server: PostgresServer): number {
  const postmaster = Number(readFileSync(join(server.dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // After the command's closing parenthesis: state, ppid, ... utime (14th field) and stime (15th).
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      if (Number(entry) === postmaster || Number(fields[1]) === postmaster)
        ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / 100;
}

/**
 * The data workload (groupBy=campaign, c=4) against a primary alone and against the same primary with a streaming
 * standby taking the reads (DATABASE_REPLICA_URLS), both servers made here with initdb and pg_basebackup, in
 * interleaved rounds. Both servers share this machine's cores with each other and with the API process, so the
 * throughput says little about a standby on its own machine; the figure that carries over is the database CPU each
 * answer costs, and where it is spent. With PgBouncer installed, a third process reads the primary through it in
 * transaction pooling mode: what that mode's extra round trips cost.
 */
async function replicasPart(): Promise<{ rows: string[]; targets: [string, string, boolean][] }> {
  const cluster = await startCluster(1);
  const started: Proc[] = [];
  const db = postgres(cluster.primary.url(), { max: 4, onnotice: () => {} });
  let bouncer: Bouncer | undefined;
  try {
    const [primary, standby] = [cluster.primary, cluster.standbys[0]];
    await migrate(db);
    const set = await dataSet(db, `Bench replicas ${scale}`, {
      accounts: 20,
      campaigns: Math.round(2000 * scale),
      creatives: Math.round(10000 * scale),
      days: 400,
    });
    const [{ lsn }] = await db`select pg_current_wal_lsn()::text as lsn`;
    for (let i = 0; standby.psql(`select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn`) !== 't'; i++) {
      if (i > 600) throw new Error('the standby did not catch up in 60 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const env = { PORT: '0', DEMO: 'off', HEAVY_PER_CLIENT: '10', DATABASE_URL: primary.url(), DATA_DIR: undefined };
    const alone = await start(pin(0, serverCommand()), env);
    started.push(alone);
    const withStandby = await start(pin(0, serverCommand()), { ...env, DATABASE_REPLICA_URLS: standby.url() });
    started.push(withStandby);
    // Room for every connection of the process (10 shared, 10 heavy), so no statement waits in PgBouncer.
    bouncer = pgbouncerBin() ? await startPgBouncer(cluster.root, primary, 20) : undefined;
    const pooled =
      bouncer &&
      (await start(pin(0, serverCommand()), {
        ...env,
        DATABASE_URL: bouncer.url(),
        DATABASE_POOL_MODE: 'transaction',
        MIGRATION_DATABASE_URL: primary.url(),
      }));
    if (pooled) started.push(pooled);
    const [{ last }] = await db`select max(day)::text as last from facts where organization_id = ${set.org}`;
    const from = new Date(Date.parse(last) - 399 * 86_400_000).toISOString().slice(0, 10);
    const path = `/v1/reports/${set.report}/data?dateFrom=${from}&dateTo=${last}&groupBy=campaign`;
    type Measured = Load & { primaryCpu: number; standbyCpu: number; bouncerCpu: number };
    const measure = async (server: Proc): Promise<Measured> => {
      const auth = { authorization: `Bearer ${await tokenFor(server.url, set.client)}` };
      await fetch(server.url + path, { headers: auth }).then((res) => res.arrayBuffer());
      const cpu = () => [serverCpu(primary), serverCpu(standby), bouncer ? processCpu(bouncer.pid) : 0];
      const before = cpu();
      const measured = await load(server.url + path, server.pid, 4, auth);
      const after = cpu();
      return {
        ...measured,
        primaryCpu: after[0] - before[0],
        standbyCpu: after[1] - before[1],
        bouncerCpu: after[2] - before[2],
      };
    };
    const aloneRuns: Measured[] = [];
    const standbyRuns: Measured[] = [];
    const pooledRuns: Measured[] = [];
    for (let round = 1; round <= rounds; round++) {
      log(
        `replicas round ${round}/${rounds}: the primary alone, primary + standby${pooled ? ', the primary through PgBouncer' : ''}`,
      );
      aloneRuns.push(await measure(alone));
      standbyRuns.push(await measure(withStandby));
      if (pooled) pooledRuns.push(await measure(pooled));
    }
    const f = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
    const each = rounds > 1 ? `, median of ${rounds} rounds` : '';
    const row = (name: string, runs: Measured[]) => {
      const r = medianRun(runs);
      const cpu = r.primaryCpu + r.standbyCpu;
      const answers = r.rps * duration;
      return {
        line: `| ${name} (c=4${each}) | ${f(r.rps)} | ${f(r.p50, 1)} | ${f(r.p99, 1)} | |`,
        perCore: answers / cpu,
        where: `primary ${f(r.primaryCpu, 1)} s, standby ${f(r.standbyCpu, 1)} s of database CPU${r.bouncerCpu ? `, PgBouncer ${f(r.bouncerCpu, 1)} s` : ''} for ${f(answers)} answers`,
        run: r,
      };
    };
    const a = row('data groupBy=campaign, the primary alone', aloneRuns);
    const b = row('data groupBy=campaign, primary + standby', standbyRuns);
    const c = pooled
      ? row('data groupBy=campaign, the primary through PgBouncer, transaction pooling', pooledRuns)
      : undefined;
    if (!pooled) log("replicas: no PgBouncer row, needs PgBouncer (Debian's pgbouncer package)");
    return {
      rows: [a.line, b.line, ...(c ? [c.line] : [])],
      targets: [
        [
          'primary alone: answers per CPU-second of database work',
          `${f(a.perCore)} (${a.where})${errorNote(a.run)}`,
          clean(a.run),
        ],
        [
          'primary + standby: the standby does most of the database work',
          `${f(b.perCore)} answers per CPU-second (${b.where})${errorNote(b.run)}`,
          clean(b.run) && b.run.standbyCpu > b.run.primaryCpu,
        ],
        ...(c
          ? ([
              [
                'primary through PgBouncer: answers per CPU-second of database work',
                `${f(c.perCore)} (${c.where}, not counted)${errorNote(c.run)}`,
                clean(c.run),
              ],
            ] as [string, string, boolean][])
          : []),
      ],
    };
  } finally {
    for (const p of started) p.child.kill('SIGTERM');
    await db.end({ timeout: 1 });
    await bouncer?.stop();
    cluster.remove();
  }
}

/**
 * Issue 56's growth table: every grouping over the same 400 days at 0.5M, 1M and 2M facts (an eighth, a quarter and
 * a half of the main set's campaigns and creatives) beside the main set's 4M, each answer's p50 and its cost per row.
 */
async function growthPart(server: Proc, main: Awaited<ReturnType<typeof dataSet>>, token: string) {
  const groupings = ['total', 'month', 'ad-account', 'segment', 'campaign', 'creative', 'video'];
  const sizes: [string, number][] = [
    ['0.5M', 1 / 8],
    ['1M', 1 / 4],
    ['2M', 1 / 2],
    ['4M', 1],
  ];
  const cells = new Map<string, string[]>(groupings.map((g) => [g, []]));
  const perRow = new Map<string, number[]>(groupings.map((g) => [g, []]));
  for (const [label, share] of sizes) {
    const set =
      share === 1
        ? main
        : await dataSet(sql, `Bench growth ${label} ${scale}`, {
            accounts: 20,
            campaigns: Math.round(2000 * scale * share),
            creatives: Math.round(10000 * scale * share),
            days: 400,
          });
    const segments = await segmentReport(sql, set.org);
    const auth = { authorization: `Bearer ${share === 1 ? token : await tokenFor(server.url, set.client)}` };
    const segmentAuth = { authorization: `Bearer ${await tokenFor(server.url, segments.client)}` };
    const [{ last }] = await sql`select max(day)::text as last from facts where organization_id = ${set.org}`;
    const from = new Date(Date.parse(last) - 399 * 86_400_000).toISOString().slice(0, 10);
    for (const groupBy of groupings) {
      const [report, headers] = groupBy === 'segment' ? [segments.report, segmentAuth] : [set.report, auth];
      const url = `${server.url}/v1/reports/${report}/data?dateFrom=${from}&dateTo=${last}&groupBy=${groupBy}`;
      log(`growth: ${label} facts, ${groupBy}`);
      const answer = (await (await fetch(url, { headers })).json()) as { rows: unknown[] };
      const run = await load(url, server.pid, 4, headers);
      const micros = (run.p50 * 1000) / Math.max(1, answer.rows.length);
      perRow.get(groupBy)!.push(micros);
      cells.get(groupBy)!.push(`${run.p50.toFixed(0)} ms, ${micros.toFixed(1)} µs/row (${answer.rows.length})`);
    }
  }
  return [
    '',
    `| grouping, 400 days, c=4 | ${sizes.map(([label]) => `${label} facts: p50, per row (rows)`).join(' | ')} |`,
    `|---|${sizes.map(() => '---:').join('|')}|`,
    ...groupings.map((g) => `| ${g} | ${cells.get(g)!.join(' | ')} |`),
    '',
    '| grouping | cost per row, 4M against 0.5M |',
    '|---|---:|',
    ...groupings.map((g) => `| ${g} | ${(perRow.get(g)![3] / perRow.get(g)![0]).toFixed(2)}× |`),
  ];
}

// --- run -------------------------------------------------------------------------------------------------------

const dataDir = embedded ? mkdtempSync(join(tmpdir(), 'readout-bench-')) : undefined;
const logDir = mkdtempSync(join(tmpdir(), 'readout-bench-logs-'));
log(`server output in ${logDir}`);
// A full run writes gigabytes of request log lines: removed at exit, unless the run failed or a request under load
// did, when they say why; BENCH_KEEP_LOGS=1 keeps them in any case (each request's server-side ms is in its line).
const keepAnyway = process.env.BENCH_KEEP_LOGS === '1';
let keepLogs = true;
process.on('exit', () =>
  keepLogs ? log(`server output kept in ${logDir}`) : rmSync(logDir, { recursive: true, force: true }),
);
const processes: Proc[] = [];
/** The server's command exactly as `npm start` runs it (package.json), flags and all, without the shell's `exec`; BENCH_START="node ..." tries another. */
const serverCommand = () =>
  (process.env.BENCH_START ?? (JSON.parse(readFileSync('package.json', 'utf8')).scripts.start as string))
    .split(/\s+/)
    .filter((word, i) => i > 0 || word !== 'exec');
const machine = (database: string) =>
  `Machine: ${cores} cores, ${database}, scale ${scale}, ${duration} s a scenario, server on core 0, load on core 1${only ? `; only ${only}` : ''}.`;
const tableHead = ['| scenario | req/s | p50 ms | p99 ms | peak RSS MB |', '|---|---:|---:|---:|---:|'];
const targetTable = (targets: [string, string, boolean][]) => [
  '',
  '| target | measured | |',
  '|---|---:|---|',
  ...targets.map(([name, measured, met]) => `| ${name} | ${measured} | ${met ? 'met' : 'missed'} |`),
];
/** The replicas part needs PostgreSQL's server binaries, which make the primary and the standby it measures. */
const replicasSkipped = () =>
  runs('replicas') && !postgresBin()
    ? (log("replicas: skipped, needs PostgreSQL's server binaries (Debian's postgresql package)"), true)
    : false;
/**
 * The embedded database's idle memory: a server started on an empty DATA_DIR (its first start, the demo seeded), and
 * the same started again, each measured at its first answer to /v1/health and ten seconds later.
 */
async function footprintPart(): Promise<{ rows: string[]; targets: [string, string, boolean][] }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'readout-bench-footprint-'));
  const measure = async (what: string) => {
    const server = await start(pin(0, serverCommand()), {
      PORT: '0',
      DATA_DIR: dataDir,
      DATABASE_URL: undefined,
      DEMO: 'on',
    });
    processes.push(server);
    await fetch(`${server.url}/v1/health`).then((res) => res.arrayBuffer());
    const atHealth = rssMb(server.pid);
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const later = rssMb(server.pid);
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
    return { what, atHealth, later };
  };
  try {
    log('footprint: a first start on an empty DATA_DIR, then a restart');
    const runs = [await measure('first start (empty DATA_DIR, demo seeded)'), await measure('restart')];
    const f = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
    return {
      rows: runs.map(
        (r) =>
          `| embedded server idle, ${r.what}: at its first health, and 10 s later | | | | ${f(r.atHealth)}, ${f(r.later)} |`,
      ),
      targets: runs.map(
        (r) =>
          [`embedded idle RSS ≤ 300 MB, ${r.what}`, `${f(r.later)} MB`, r.later <= 300] as [string, string, boolean],
      ),
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
if (only === 'footprint') {
  const part = await footprintPart();
  console.log([machine('embedded PGlite'), '', ...tableHead, ...part.rows, ...targetTable(part.targets)].join('\n'));
  keepLogs = keepAnyway;
  process.exit(part.targets.every(([, , met]) => met) ? 0 : 1);
}
if (only === 'import') {
  const part = await importPart();
  console.log(
    [
      machine(embedded ? 'embedded PGlite' : 'PostgreSQL'),
      '',
      ...tableHead,
      ...part.rows,
      ...targetTable(part.targets),
    ].join('\n'),
  );
  process.exit(part.targets.every(([, , met]) => met) ? 0 : 1);
}
if (only === 'replicas') {
  if (replicasSkipped()) {
    keepLogs = keepAnyway;
    process.exit(0);
  }
  const part = await replicasPart();
  console.log(
    [
      machine('PostgreSQL primary and standby made here, sharing its cores'),
      '',
      ...tableHead,
      ...part.rows,
      ...targetTable(part.targets),
    ].join('\n'),
  );
  keepLogs = keepAnyway;
  process.exit(part.targets.every(([, , met]) => met) ? 0 : 1);
}
// An embedded run's server must not inherit DATABASE_URL from the shell: it would serve a database the bench never
// filled. Ten data answers at once from one client (the memory scenario) need a per-client limit above the default 4.
const serverEnv = {
  PORT: '0',
  DEMO: 'off',
  HEAVY_PER_CLIENT: '10',
  HEAVY_CONNECTIONS: process.env.HEAVY_CONNECTIONS,
  ...(embedded ? { DATA_DIR: dataDir!, DATABASE_URL: undefined } : { DATABASE_URL: process.env.DATABASE_URL! }),
};
let sql: Sql;
let closeDb = async () => {};

try {
  const server = await start(pin(0, serverCommand()), serverEnv);
  processes.push(server);
  const db = await openDatabase(embedded ? { dataDir } : { databaseUrl: process.env.DATABASE_URL });
  sql = db.sql;
  closeDb = () => db.close();
  await migrate(sql);
  const days = 400;
  const main = await dataSet(sql, `Bench ${scale}`, {
    accounts: 20,
    campaigns: Math.round(2000 * scale),
    creatives: Math.round(10000 * scale),
    days,
  });
  const exportRows = Math.round(1_048_575 * scale);
  const big = await dataSet(sql, `Bench export ${scale}`, {
    accounts: 20,
    campaigns: Math.round(2000 * scale),
    creatives: exportRows,
    days: 1,
  });
  // The same shape with accounts in USD, EUR and GBP (daily ECB rates for EUR and GBP) and its report in EUR: every
  // grouping converts, and is measured against the one-currency report above.
  const converted =
    runs('currencies') || runs('periods') || runs('dashboards')
      ? await dataSet(
          sql,
          `Bench currencies ${scale}`,
          { accounts: 20, campaigns: Math.round(2000 * scale), creatives: Math.round(10000 * scale), days },
          { currencies: ['USD', 'EUR', 'GBP'], reportCurrency: 'EUR' },
        )
      : undefined;
  const segments = await segmentReport(sql, main.org);
  const token = await tokenFor(server.url, main.client);
  const segmentToken = await tokenFor(server.url, segments.client);
  const exportToken = await tokenFor(server.url, big.client);
  const bare = await start(pin(0, ['node', '--import', 'tsx', 'scripts/bareServer.ts']), {});
  processes.push(bare);
  // Warmed as the servers it is the floor for are: a cold first round read half its pace and flattered the ratio.
  if (runs('http')) await load(`${bare.url}/`, bare.pid, 8, {}, 2);

  // The data set's own 400 days, wherever they fall: it may have been generated on an earlier day.
  const [{ last }] = await sql`select max(day)::text as last from facts where organization_id = ${main.org}`;
  const lastDay = last as string;
  const from = new Date(Date.parse(lastDay) - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  const range = `dateFrom=${from}&dateTo=${lastDay}`;
  const auth = { authorization: `Bearer ${token}` };
  const dataUrl = (groupBy: string) => `${server.url}/v1/reports/${main.report}/data?${range}&groupBy=${groupBy}`;
  const DATA_C = 4;

  log('warming up');
  await load(`${server.url}/v1/reports`, server.pid, 8, auth, 2);
  /** One untimed answer, read to its end: what a scenario reads comes from memory, not disk, when it is timed. */
  const warm = (url: string, headers = auth) => fetch(url, { headers }).then((res) => res.arrayBuffer());
  // One whole answer first: a cold first answer can outlast the warm-up load, which would then finish nothing.
  await warm(dataUrl('campaign'));
  await load(dataUrl('campaign'), server.pid, 2, auth, 2);
  const idleRss = rssMb(server.pid);

  type Row = Load | { rps: number; p50: number; p99: number; peakRss?: number };
  const rows: [string, Row][] = [];
  const targets: [string, string, boolean][] = [];
  const f = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

  if (runs('http')) {
    // The same src/ on Bun and Deno, against the same database, on the same core, loaded by the same autocannon: the
    // runtimes side by side. The embedded database is one process's own, so an embedded run measures Node alone.
    const runtimes: { name: string; proc: Proc }[] = [];
    if (!embedded) {
      for (const [name, cmd] of [
        ['Bun', ['node_modules/.bin/bun', 'src/main.ts']],
        ['Deno', ['node_modules/.bin/deno', 'run', '-A', 'src/main.ts']],
      ] as const) {
        const proc = await start(pin(0, [...cmd]), serverEnv);
        processes.push(proc);
        runtimes.push({ name, proc });
        await load(`${proc.url}/v1/reports`, proc.pid, 8, auth, 2);
      }
    }
    const bareRuns: Load[] = [];
    const healthRuns: Load[] = [];
    const reportsRuns: Load[] = [];
    const elsewhere = runtimes.map(() => ({ health: [] as Load[], reports: [] as Load[] }));
    const [bun, deno] = ['Bun', 'Deno'].map((name) => runtimes.findIndex((r) => r.name === name));
    const health = (proc: Proc, into: Load[]) => async () =>
      void into.push(await load(`${proc.url}/v1/health`, proc.pid, 32));
    const reportsOn = (proc: Proc, into: Load[]) => async () =>
      void into.push(await load(`${proc.url}/v1/reports`, proc.pid, 32, auth));
    // Each ratio's two runs back to back, and every other round in the reverse order: the machine's pace drifts within
    // seconds (BENCHMARKS.md, "The machine"), so runs ten seconds apart made a noisy pair.
    const round = [
      async () => void bareRuns.push(await load(`${bare.url}/`, bare.pid, 32)),
      health(server, healthRuns),
      ...(bun >= 0 ? [health(runtimes[bun].proc, elsewhere[bun].health)] : []),
      ...(bun >= 0 ? [reportsOn(runtimes[bun].proc, elsewhere[bun].reports)] : []),
      reportsOn(server, reportsRuns),
      ...(deno >= 0 ? [health(runtimes[deno].proc, elsewhere[deno].health)] : []),
      ...(deno >= 0 ? [reportsOn(runtimes[deno].proc, elsewhere[deno].reports)] : []),
    ];
    for (let n = 1; n <= rounds; n++) {
      log(
        `http round ${n}/${rounds}: bare node:http, /v1/health, /v1/reports${runtimes.map((r) => `, on ${r.name}`).join('')}`,
      );
      for (const run of n % 2 === 1 ? round : [...round].reverse()) await run();
    }
    const each = rounds > 1 ? ` (median of ${rounds} rounds)` : '';
    rows.push(
      [`bare node:http, floor${each}`, medianRun(bareRuns)],
      [`GET /v1/health${each}`, medianRun(healthRuns)],
      [`GET /v1/reports${each}`, medianRun(reportsRuns)],
    );
    for (const [i, { name }] of runtimes.entries()) {
      rows.push(
        [`GET /v1/health on ${name}${each}`, medianRun(elsewhere[i].health)],
        [`GET /v1/reports on ${name}${each}`, medianRun(elsewhere[i].reports)],
      );
    }
    const healthShare = median(healthRuns.map((r, i) => r.rps / bareRuns[i].rps));
    const reportsShare = median(reportsRuns.map((r, i) => r.rps / healthRuns[i].rps));
    const reportsRps = medianRun(reportsRuns).rps;
    const roundsNote = (ratios: number[]) =>
      rounds > 1 ? ` (rounds: ${ratios.map((x) => f(x * 100)).join(', ')})` : '';
    targets.push(
      [
        '/v1/health ≥ 70 % of bare node:http',
        `${f(healthShare * 100)} %${roundsNote(healthRuns.map((r, i) => r.rps / bareRuns[i].rps))}${errorNote(...bareRuns, ...healthRuns)}`,
        healthShare >= 0.7 && clean(...bareRuns, ...healthRuns),
      ],
      [
        '/v1/reports ≥ 3,000 req/s',
        `${f(reportsRps)} req/s${errorNote(...reportsRuns)}`,
        reportsRps >= 3000 && clean(...reportsRuns),
      ],
      [
        '/v1/reports ≥ 40 % of /v1/health',
        `${f(reportsShare * 100)} %${roundsNote(reportsRuns.map((r, i) => r.rps / healthRuns[i].rps))}${errorNote(...healthRuns, ...reportsRuns)}`,
        reportsShare >= 0.4 && clean(...healthRuns, ...reportsRuns),
      ],
    );
    // Node is what `npm start` runs: within 80 % of Bun's pace on both paths, each round's pair measured back to back.
    // Beside it, requests per second of the server's CPU time: where one autocannon on one core cannot load Bun to
    // its full pace, the pace measures autocannon, and this measures the servers.
    if (bun >= 0) {
      for (const [path, ours, theirs] of [
        ['/v1/health', healthRuns, elsewhere[bun].health],
        ['/v1/reports', reportsRuns, elsewhere[bun].reports],
      ] as const) {
        const ratios = ours.map((r, i) => r.rps / theirs[i].rps);
        const share = median(ratios);
        const perCpu = median(ours.map((r, i) => theirs[i].cpuPerRequest / r.cpuPerRequest));
        const cpuNote = Number.isFinite(perCpu) ? `; per CPU-second ${f(perCpu * 100)} %` : '';
        targets.push([
          `${path} on Node ≥ 80 % of Bun`,
          `${f(share * 100)} %${roundsNote(ratios)}${cpuNote}${errorNote(...ours, ...theirs)}`,
          share >= 0.8 && clean(...ours, ...theirs),
        ]);
      }
    }
  }

  if (runs('data')) {
    const groupings: Record<string, Load> = {};
    // The campaign grouping and its own SQL run in interleaved rounds, as the HTTP scenarios do: the overhead is
    // the median of the rounds' own ratios, each of a pair measured a few seconds apart.
    const params = [main.accounts, null, from, lastDay, 'USD', null];
    const campaignRuns: Load[] = [];
    const ownRuns: Awaited<ReturnType<typeof loop>>[] = [];
    for (let round = 1; round <= rounds; round++) {
      log(`data round ${round}/${rounds}: campaign through HTTP, then its own SQL`);
      campaignRuns.push(await load(dataUrl('campaign'), server.pid, DATA_C, auth));
      ownRuns.push(await loop(DATA_C, duration, () => queryAs(sql, 'report-data-campaign', params as never[])));
    }
    const each = rounds > 1 ? `, median of ${rounds} rounds` : '';
    groupings.campaign = medianRun(campaignRuns);
    rows.push([`data groupBy=campaign, ${days} days, all accounts (c=${DATA_C}${each})`, groupings.campaign]);
    // The same answer with a custom metric (a formula PostgreSQL evaluates), and sorted by a metric (an ORDER BY).
    const customUrl = `${dataUrl('campaign')}&metrics=impressions,clicks,spend,conversions,ctr,cpc,cpa,roas,engagement`;
    const sortedUrl = `${dataUrl('campaign')}&sort=clicks&sortDesc=true`;
    log('data campaign with a custom metric, and sorted');
    const customRun = await load(customUrl, server.pid, DATA_C, auth);
    const sortedRun = await load(sortedUrl, server.pid, DATA_C, auth);
    const plainRun = await load(dataUrl('campaign'), server.pid, DATA_C, auth);
    rows.push(
      [`data groupBy=campaign with a custom metric (c=${DATA_C})`, customRun],
      [`data groupBy=campaign sorted by clicks (c=${DATA_C})`, sortedRun],
      [`data groupBy=campaign, again beside them (c=${DATA_C})`, plainRun],
    );
    targets.push(
      [
        'custom-metric campaign answer p50 ≤ 1.3× the plain one',
        `${f(customRun.p50 / plainRun.p50, 2)}×${errorNote(customRun, plainRun)}`,
        customRun.p50 <= 1.3 * plainRun.p50 && clean(customRun, plainRun),
      ],
      [
        'sorted campaign answer p50 ≤ 1.3× the plain one',
        `${f(sortedRun.p50 / plainRun.p50, 2)}×${errorNote(sortedRun, plainRun)}`,
        sortedRun.p50 <= 1.3 * plainRun.p50 && clean(sortedRun, plainRun),
      ],
    );
    // Every grouping: the segment grouping from the segment report over the same facts (a campaign in two segments).
    const segmentAuth = { authorization: `Bearer ${segmentToken}` };
    const segmentUrl = `${server.url}/v1/reports/${segments.report}/data?${range}&groupBy=segment`;
    for (const groupBy of ['total', 'month', 'ad-account', 'segment', 'creative', 'video']) {
      log(`data ${groupBy}`);
      const [url, headers, what] =
        groupBy === 'segment'
          ? [segmentUrl, segmentAuth, `${SEGMENTS} segments of the same accounts`]
          : [dataUrl(groupBy), auth, 'all accounts'];
      // Warm, as the campaign grouping is: the groupings that read raw facts would otherwise time the disk.
      await warm(url, headers);
      groupings[groupBy] = await load(url, server.pid, DATA_C, headers);
      rows.push([`data groupBy=${groupBy}, ${days} days, ${what} (c=${DATA_C})`, groupings[groupBy]]);
    }
    // A dashboard refreshing an unchanged report should cost less than a list of reports: the 304 and /v1/reports in
    // interleaved rounds, each round's pair back to back.
    const etag = (await fetch(dataUrl('campaign'), { headers: auth })).headers.get('etag')!;
    const notModifiedRuns: Load[] = [];
    const listRuns: Load[] = [];
    for (let round = 1; round <= rounds; round++) {
      log(`304 round ${round}/${rounds}: data with If-None-Match, then /v1/reports`);
      notModifiedRuns.push(
        await load(dataUrl('campaign'), server.pid, 32, { ...auth, 'if-none-match': etag }, duration, 304),
      );
      listRuns.push(await load(`${server.url}/v1/reports`, server.pid, 32, auth));
    }
    const notModified = medianRun(notModifiedRuns);
    rows.push(
      [`data, If-None-Match → 304${each}`, notModified],
      [`GET /v1/reports beside it${each}`, medianRun(listRuns)],
    );
    // The 304 above finds that no transaction has ended since the scope was read, most of the time: only the bench's
    // own quota writes commit meanwhile. On a database written to all the while, most compute the scope's
    // fingerprint as well (sql/queries/get-report-fingerprint.sql): one run with a transaction committed every
    // millisecond or so on another connection.
    log('304 while other transactions commit');
    const writer = await sql.reserve();
    await writer`create temp table bench_commits (n int)`;
    let writing = true;
    let commits = 0;
    const writes = (async () => {
      for (; writing; commits++) {
        await writer`insert into bench_commits values (1)`;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    const busy = await load(dataUrl('campaign'), server.pid, 32, { ...auth, 'if-none-match': etag }, duration, 304);
    writing = false;
    await writes;
    writer.release();
    const listed = medianRun(listRuns).rps;
    rows.push([
      `data, If-None-Match → 304, while ${f(commits / duration)} transactions/s commit elsewhere (${f((busy.rps / listed) * 100)} % of /v1/reports)`,
      busy,
    ]);
    const notModifiedShares = notModifiedRuns.map((r, i) => r.rps / listRuns[i].rps);
    targets.push([
      '304 ≥ 50 % of /v1/reports',
      `${f(median(notModifiedShares) * 100)} %${rounds > 1 ? ` (rounds: ${notModifiedShares.map((x) => f(x * 100)).join(', ')})` : ''}${errorNote(...notModifiedRuns, ...listRuns)}`,
      median(notModifiedShares) >= 0.5 && clean(...notModifiedRuns, ...listRuns),
    ]);

    log('SQL floors');
    const ownSql = [...ownRuns].sort((a, b) => a.p50 - b.p50)[Math.floor((ownRuns.length - 1) / 2)];
    rows.push([`the endpoint's own SQL via postgres.js (c=${DATA_C}${each})`, ownSql]);
    const naive = await loop(DATA_C, duration, () =>
      sql.unsafe(
        `select campaign_id, sum(impressions) as impressions, sum(clicks) as clicks, sum(spend) as spend, sum(conversions) as conversions,
                sum(conversion_value) as conversion_value, sum(video_views) as video_views, sum(video_completions) as video_completions
         from facts where ad_account_id = any($1::uuid[]) and day between $2 and $3 group by campaign_id`,
        [main.accounts, from, lastDay],
      ),
    );
    rows.push([`naive GROUP BY over raw facts (c=${DATA_C})`, naive]);
    const overheads = campaignRuns.map((r, i) => r.p50 / ownRuns[i].p50 - 1);
    const overhead = median(overheads);
    const overheadRounds = rounds > 1 ? ` (rounds: ${overheads.map((x) => f(x * 100)).join(', ')})` : '';
    targets.push(
      [
        'data campaign p50 ≤ 1/5 of the naive GROUP BY',
        `${f(naive.p50 / groupings.campaign.p50, 1)}× faster${errorNote(...campaignRuns)}`,
        groupings.campaign.p50 * 5 <= naive.p50 && clean(...campaignRuns),
      ],
      [
        "HTTP overhead over the endpoint's own SQL ≤ 15 %",
        `${f(overhead * 100)} %${overheadRounds}${errorNote(...campaignRuns)}`,
        overhead <= 0.15 && clean(...campaignRuns),
      ],
      [
        '304 ≥ 10× data throughput',
        `${f(notModified.rps / groupings.campaign.rps, 1)}×${errorNote(notModified, ...campaignRuns)}`,
        notModified.rps >= 10 * groupings.campaign.rps && clean(notModified, ...campaignRuns),
      ],
    );
    // Every grouping against a naive GROUP BY of the same answer over the raw facts (the campaign's is above).
    const floors: [string, number, { p50: number }][] = [['campaign', 40, naive]];
    for (const [groupBy, bound] of NAIVE_BOUNDS) {
      log(`naive GROUP BY for ${groupBy}`);
      const run = await loop(DATA_C, duration, () => sql.unsafe(naiveSql(groupBy), [main.accounts, from, lastDay]));
      rows.push([`naive GROUP BY for groupBy=${groupBy} over raw facts (c=${DATA_C})`, run]);
      floors.push([groupBy, bound, run]);
    }
    for (const [groupBy, bound, run] of floors) {
      targets.push([
        `data ${groupBy} p50 ≥ ${bound}× faster than its naive GROUP BY`,
        `${f(run.p50 / groupings[groupBy].p50, 1)}×`,
        run.p50 >= bound * groupings[groupBy].p50,
      ]);
    }
  }

  const after: string[] = [];
  if (runs('growth')) after.push(...(await growthPart(server, main, token)), ...(await importGrowth(scale)));
  if (runs('periods')) {
    // docs/decisions.md §6, interval: campaign × day over the whole range, as a warehouse job's first load asks for it,
    // and the shapes users add to it (a week, a custom metric, a sort, money converted); total × day against the total.
    const rowsOf = async (url: string, headers: Record<string, string>) =>
      (await (await fetch(url, { headers })).json()).rows.length as number;
    const shapes: [string, string, Record<string, string>][] = [
      ['campaign × day', `${dataUrl('campaign')}&interval=day`, auth],
      [
        'campaign × day with a custom metric',
        `${dataUrl('campaign')}&interval=day&metrics=impressions,clicks,spend,ctr,engagement`,
        auth,
      ],
      ['campaign × day sorted by clicks', `${dataUrl('campaign')}&interval=day&sort=clicks&sortDesc=true`, auth],
      // Filters every row passes: the same rows, their values bound (copyOut.ts).
      [
        'campaign × day filtered (spend>=0, a name =@)',
        `${dataUrl('campaign')}&interval=day&filter=spend>=0&filter=campaignName=@campaign`,
        auth,
      ],
      ['campaign × week', `${dataUrl('campaign')}&interval=week`, auth],
      ['creative × month', `${dataUrl('creative')}&interval=month`, auth],
    ];
    if (converted) {
      const [{ last: convertedLast }] =
        await sql`select max(day)::text as last from facts where organization_id = ${converted.org}`;
      const convertedFrom = new Date(Date.parse(convertedLast) - (days - 1) * 86_400_000).toISOString().slice(0, 10);
      const convertedAuth = { authorization: `Bearer ${await tokenFor(server.url, converted.client)}` };
      shapes.push([
        'campaign × day, EUR report over USD, EUR and GBP accounts',
        `${server.url}/v1/reports/${converted.report}/data?dateFrom=${convertedFrom}&dateTo=${convertedLast}&groupBy=campaign&interval=day`,
        convertedAuth,
      ]);
    }
    // An answer of hundreds of thousands of rows outlasts a scenario at c=4: each shape is served as whole downloads,
    // DATA_C at once, twice over; rows/s served is all their rows over the wall time.
    let campaignDays = 0;
    let campaignServed = 0;
    let filteredServed = 0;
    for (const [name, url, headers] of shapes) {
      log(`periods: ${name}`);
      const n = await rowsOf(url, headers);
      const bearerOf = headers.authorization.slice('Bearer '.length);
      const t0 = performance.now();
      const times: number[] = [];
      const { peak } = await peakRss(server.pid, () =>
        Promise.all(
          Array.from({ length: DATA_C }, async () => {
            for (let i = 0; i < 2; i++) times.push((await download(url, bearerOf, server.pid)).seconds * 1000);
          }),
        ),
      );
      const served = (2 * DATA_C * n) / ((performance.now() - t0) / 1000);
      times.sort((a, b) => a - b);
      rows.push([
        `data ${name}, ${days} days, ${f(n)} rows an answer, ${2 * DATA_C} downloads ${DATA_C} at once (${f(served)} rows/s served)`,
        {
          rps: (2 * DATA_C) / ((performance.now() - t0) / 1000),
          p50: times[Math.floor((times.length - 1) / 2)],
          p99: times[times.length - 1],
          peakRss: peak,
        },
      ]);
      if (name === 'campaign × day') (campaignDays = n), (campaignServed = served);
      if (name.startsWith('campaign × day filtered')) filteredServed = served;
    }
    log('periods: total × day against total');
    const totalRun = await load(dataUrl('total'), server.pid, DATA_C, auth);
    const totalDays = await load(`${dataUrl('total')}&interval=day`, server.pid, DATA_C, auth);
    rows.push(
      [`data groupBy=total, ${days} days (c=${DATA_C})`, totalRun],
      [`data total × day, ${days} days (c=${DATA_C})`, totalDays],
    );
    const oneAnswer = await download(`${dataUrl('campaign')}&interval=day`, token, server.pid);
    after.push(
      `| one campaign × day answer, ${f(campaignDays)} rows, read whole | ${f(campaignDays / oneAnswer.seconds)} rows/s | ${f(oneAnswer.seconds * 1000)} total | | ${f(oneAnswer.peak)} |`,
    );
    targets.push(
      [
        `campaign × day, ${days} days ≥ 200,000 rows/s served`,
        `${f(campaignServed)} rows/s (${f(campaignDays)} rows an answer, ${DATA_C} at once)`,
        campaignServed >= 200_000,
      ],
      [
        'campaign × day filtered, every row kept: rows/s ≥ 1/1.3 of the plain answer',
        `${f(campaignServed / filteredServed, 2)}× slower (${f(filteredServed)} rows/s)`,
        filteredServed * 1.3 >= campaignServed,
      ],
      [
        'total × day p50 ≤ 2× groupBy=total',
        `${f(totalDays.p50 / totalRun.p50, 2)}× (${f(totalDays.p50, 1)} ms against ${f(totalRun.p50, 1)} ms)${errorNote(totalRun, totalDays)}`,
        totalDays.p50 <= 2 * totalRun.p50 && clean(totalRun, totalDays),
      ],
      [
        'campaign × day answer peak RSS within 64 MB of idle',
        `${oneAnswer.peak >= idleRss ? '+' : ''}${f(oneAnswer.peak - idleRss)} MB`,
        oneAnswer.peak - idleRss <= 64,
      ],
    );
  }

  if (converted && runs('currencies')) {
    const convertedAuth = { authorization: `Bearer ${await tokenFor(server.url, converted.client)}` };
    const [{ last: convertedLast }] =
      await sql`select max(day)::text as last from facts where organization_id = ${converted.org}`;
    const convertedFrom = new Date(Date.parse(convertedLast) - (days - 1) * 86_400_000).toISOString().slice(0, 10);
    const convertedUrl = (groupBy: string) =>
      `${server.url}/v1/reports/${converted.report}/data?dateFrom=${convertedFrom}&dateTo=${convertedLast}&groupBy=${groupBy}`;
    for (const groupBy of ['total', 'campaign', 'month', 'ad-account', 'creative', 'video']) {
      log(`currencies ${groupBy}: one currency, then converted`);
      await warm(dataUrl(groupBy));
      await warm(convertedUrl(groupBy), convertedAuth);
      const one = await load(dataUrl(groupBy), server.pid, DATA_C, auth);
      const other = await load(convertedUrl(groupBy), server.pid, DATA_C, convertedAuth);
      rows.push(
        [`data groupBy=${groupBy}, ${days} days, USD report over USD accounts (c=${DATA_C})`, one],
        [`data groupBy=${groupBy}, ${days} days, EUR report over USD, EUR and GBP accounts (c=${DATA_C})`, other],
      );
      targets.push([
        `converted groupBy=${groupBy} p50 ≤ 1.5× one-currency`,
        `${f(other.p50 / one.p50, 2)}× (${f(other.p50, 1)} ms against ${f(one.p50, 1)} ms)${errorNote(one, other)}`,
        other.p50 <= 1.5 * one.p50 && clean(one, other),
      ]);
    }
  }

  if (converted && runs('dashboards')) {
    // docs/decisions.md §6 on the multi-currency set (every answer converts), 200 days: each answer against its plain
    // twin, measured one after the other in the same run.
    const dashboardAuth = { authorization: `Bearer ${await tokenFor(server.url, converted.client)}` };
    const [{ last: end }] =
      await sql`select max(day)::text as last from facts where organization_id = ${converted.org}`;
    const dayBefore = (day: string, n: number) => new Date(Date.parse(day) - n * 86_400_000).toISOString().slice(0, 10);
    const span = 200;
    const start = dayBefore(end, span - 1);
    const compare = `&compareFrom=${dayBefore(start, span)}&compareTo=${dayBefore(start, 1)}`;
    const shapes: [string, string, number][] = [
      ['a custom metric', '&metrics=engagement', 1.3],
      ['a filter (spend>100 and a name =@)', '&filter=spend>100&filter=campaignName=@a', 1.3],
      ['a summary', '&summary=true', 1.3],
      ['a comparison range (the 200 days before)', compare, 2.3],
    ];
    // The rows' name to filter on, where they have one (docs/decisions.md §6); month rows have none.
    const nameKeys: Record<string, string | undefined> = {
      campaign: 'campaignName',
      creative: 'creativeName',
      'ad-account': 'adAccountName',
    };
    for (const groupBy of ['campaign', 'creative', 'ad-account', 'month']) {
      const plainUrl = `${server.url}/v1/reports/${converted.report}/data?dateFrom=${start}&dateTo=${end}&groupBy=${groupBy}&metrics=impressions,clicks,spend,ctr,cpc`;
      await warm(plainUrl, dashboardAuth);
      for (const [what, query, bound] of shapes) {
        const name = nameKeys[groupBy];
        const asked = name ? query.replace('campaignName', name) : query.replace('&filter=campaignName=@a', '');
        log(`dashboards ${groupBy}: plain, then ${what}`);
        await warm(`${plainUrl}${asked}`, dashboardAuth);
        const plain = await load(plainUrl, server.pid, DATA_C, dashboardAuth);
        const shaped = await load(`${plainUrl}${asked}`, server.pid, DATA_C, dashboardAuth);
        rows.push(
          [`data groupBy=${groupBy}, ${span} days, EUR over three currencies, plain (c=${DATA_C})`, plain],
          [`the same with ${what} (c=${DATA_C})`, shaped],
        );
        targets.push([
          `${groupBy} with ${what} p50 ≤ ${bound}× plain`,
          `${f(shaped.p50 / plain.p50, 2)}× (${f(shaped.p50, 1)} ms against ${f(plain.p50, 1)} ms)${errorNote(plain, shaped)}`,
          shaped.p50 <= bound * plain.p50 && clean(plain, shaped),
        ]);
      }
    }
  }

  if (runs('exports')) {
    // The export data set is one day of facts: the day it was generated on, which a later run must reuse.
    const [{ day, n: exported }] =
      await sql`select max(day)::text as day, count(*)::int as n from facts where organization_id = ${big.org}`;
    log(`exports of ${exported} rows`);
    const exportUrl = (ext: string) =>
      `${server.url}/v1/reports/${big.report}/export.${ext}?dateFrom=${day}&dateTo=${day}&groupBy=creative`;
    // One download first, untimed, as every load scenario has its warm-up: the export's million facts and creatives
    // are read from disk once, not in the timed run only (the COPY floor below always ran warm, after it). Its time is
    // shown, and its peak RSS counts.
    log('export warm-up');
    const first = await download(exportUrl('csv'), exportToken, server.pid);
    const csv = await download(exportUrl('csv'), exportToken, server.pid);
    const xlsx = await download(exportUrl('xlsx'), exportToken, server.pid);
    const floors = await exportFloors(sql, big.accounts, day, embedded);
    const exportPeak = Math.max(first.peak, csv.peak, xlsx.peak);
    after.push(
      `| export.csv, ${f(exported)} rows, first download (warm-up, not the target's) | ${f(exported / first.seconds)} rows/s | ${f(first.seconds * 1000)} total | | ${f(first.peak)} |`,
    );
    after.push(
      `| export.csv, ${f(exported)} rows | ${f(exported / csv.seconds)} rows/s | ${f(csv.seconds * 1000)} total | | ${f(csv.peak)} |`,
    );
    after.push(
      `| export.xlsx, ${f(exported)} rows | ${f(exported / xlsx.seconds)} rows/s | ${f(xlsx.seconds * 1000)} total | | ${f(xlsx.peak)} |`,
    );
    after.push(
      `| the export's own SQL read through a postgres.js cursor (floor) | ${f(exported / floors.cursor)} rows/s | ${f(floors.cursor * 1000)} total | | |`,
    );
    if (floors.copy)
      after.push(
        `| the export's own SQL as PostgreSQL's own CSV, COPY … TO STDOUT (floor) | ${f(exported / floors.copy)} rows/s | ${f(floors.copy * 1000)} total | | |`,
      );
    // Ten data answers of about 100,000 rows each at once (the export set's creatives of enough ad accounts): the
    // answers are streamed from a cursor a batch at a time, so memory holds batches, not answers.
    const accountsFor100k = Math.min(big.accounts.length, Math.ceil((big.accounts.length * 100_000) / exported));
    // With a custom metric, from three clients (4 + 3 + 3), as a dashboard's users would ask.
    const bigData = `${server.url}/v1/reports/${big.report}/data?dateFrom=${day}&dateTo=${day}&groupBy=creative&metrics=impressions,clicks,spend,ctr,engagement&adAccountIds=${big.accounts.slice(0, accountsFor100k).join(',')}`;
    const dataTokens = [
      exportToken,
      ...(await Promise.all([1, 2].map(async () => tokenFor(server.url, await benchClient(sql, big.org, big.report))))),
    ];
    log('ten data answers of 100,000 rows with a custom metric at once, from three clients');
    await fetch(bigData, { headers: { authorization: `Bearer ${exportToken}` } }).then((res) => res.arrayBuffer());
    const dataIdle = rssMb(server.pid);
    const tenData = await peakRss(server.pid, () =>
      Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const res = await fetch(bigData, { headers: { authorization: `Bearer ${dataTokens[i % 3]}` } });
          const body = await res.json();
          return res.status === 200 ? (body.rows.length as number) : -1;
        }),
      ),
    );
    const dataRowsEach = Math.min(...tenData.result);
    after.push(
      `| ten data answers with a custom metric at once, three clients, ${f(dataRowsEach)} rows each | | | | ${f(tenData.peak)} |`,
    );
    // The same with a summary and a comparison range (the day before: every row's other side is zeros).
    const dayBefore = new Date(Date.parse(day) - 86_400_000).toISOString().slice(0, 10);
    const shapedData = `${bigData}&summary=true&compareFrom=${dayBefore}&compareTo=${dayBefore}`;
    log('the same ten with a summary and a comparison range');
    await fetch(shapedData, { headers: { authorization: `Bearer ${exportToken}` } }).then((res) => res.arrayBuffer());
    const shapedIdle = rssMb(server.pid);
    const tenShaped = await peakRss(server.pid, () =>
      Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const res = await fetch(shapedData, { headers: { authorization: `Bearer ${dataTokens[i % 3]}` } });
          const body = await res.json();
          return res.status === 200 && body.summary ? (body.rows.length as number) : -1;
        }),
      ),
    );
    const shapedRowsEach = Math.min(...tenShaped.result);
    after.push(
      `| the same with a summary and a comparison range, ${f(shapedRowsEach)} rows each | | | | ${f(tenShaped.peak)} |`,
    );
    targets.push([
      'ten concurrent 100,000-row answers with a summary and a comparison add < 100 MB',
      `+${f(tenShaped.peak - shapedIdle)} MB over ${f(shapedIdle)} MB (${f(shapedRowsEach)} rows each)`,
      tenShaped.peak - shapedIdle < 100 && shapedRowsEach >= 100_000 * Math.min(1, exported / 100_000) * 0.9,
    ]);
    targets.push(
      ['CSV ≥ 300,000 rows/s', `${f(exported / csv.seconds)} rows/s`, exported / csv.seconds >= 300_000],
      [
        'ten concurrent 100,000-row custom-metric answers add < 100 MB',
        `+${f(tenData.peak - dataIdle)} MB over ${f(dataIdle)} MB (${f(dataRowsEach)} rows each)`,
        tenData.peak - dataIdle < 100 && dataRowsEach >= 100_000 * Math.min(1, exported / 100_000) * 0.9,
      ],
      [`XLSX of ${f(exported)} rows inside 30 s`, `${f(xlsx.seconds, 1)} s`, xlsx.seconds <= 30],
      [
        'export peak RSS within 64 MB of idle',
        `${exportPeak >= idleRss ? '+' : ''}${f(exportPeak - idleRss)} MB`,
        exportPeak - idleRss <= 64,
      ],
    );
  }
  if (runs('fair')) {
    // docs/decisions.md §13: another organization's cheap requests (a list every 100 ms, a token every fifth time)
    // while four clients each run four heavy requests at once (120,000-row creative answers sorted by a custom metric,
    // and CSV and XLSX exports of them, read at full speed), for twice a scenario's time. On a server of its own with
    // the default limits, as the target says: the bench's server lets a client run ten (the memory scenario), which
    // makes its heavy pool eleven connections rather than HEAVY_PER_CLIENT + 1, and cheap requests wait behind them.
    const fair = await start(pin(0, serverCommand()), { ...serverEnv, HEAVY_PER_CLIENT: undefined });
    processes.push(fair);
    const [{ day, n: exported }] =
      await sql`select max(day)::text as day, count(*)::int as n from facts where organization_id = ${big.org}`;
    const accountsFor120k = Math.min(big.accounts.length, Math.ceil((big.accounts.length * 120_000) / exported));
    const scope = `dateFrom=${day}&dateTo=${day}&groupBy=creative&adAccountIds=${big.accounts.slice(0, accountsFor120k).join(',')}`;
    const heavyPaths = [
      `data?${scope}&metrics=impressions,clicks,spend,ctr,engagement&sort=engagement&sortDesc=true`,
      `export.csv?${scope}&metrics=impressions,clicks,spend,ctr,engagement&sort=clicks`,
      `export.xlsx?${scope}`,
    ];
    const heavyTokens = [
      exportToken,
      ...(await Promise.all(
        [1, 2, 3].map(async () => tokenFor(fair.url, await benchClient(sql, big.org, big.report))),
      )),
    ];
    // In a process of its own, on the load's core: the bench's own reading of the heavy answers must not delay it.
    const probing = (seconds: number) =>
      new Promise<{ ms: number; ok: boolean; list: boolean }[]>((resolve, reject) => {
        const probe = JSON.stringify({
          url: fair.url,
          token: auth.authorization.slice('Bearer '.length),
          clientId: main.client.clientId,
          clientSecret: main.client.clientSecret,
          seconds,
        });
        const args = pin(1, ['node', '--import', 'tsx', 'scripts/benchProbe.ts', probe]);
        const child = spawn(args[0], args.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (chunk) => (out += chunk));
        child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`probe exited ${code}`))));
      });
    log('cheap requests alone, then beside sixteen heavy ones');
    const alone = await probing(Math.min(5, duration));
    const heavyStatuses: number[] = [];
    /** A heavy answer's status when its download was cut after the headers. */
    const CUT = -1;
    let heavyWorst = 0;
    const seconds = 2 * duration;
    const until = performance.now() + seconds * 1000;
    const heavy = heavyTokens.flatMap((heavyToken, c) =>
      Array.from({ length: 4 }, async (_, l) => {
        for (let i = 0; performance.now() < until && i < 100; i++) {
          const t0 = performance.now();
          const res = await fetch(
            `${fair.url}/v1/reports/${big.report}/${heavyPaths[(c + l + i) % heavyPaths.length]}`,
            { headers: { authorization: `Bearer ${heavyToken}` } },
          );
          // The deadline cuts a download mid-stream (docs/decisions.md §6): a timeout, as a 503 before it starts is.
          try {
            for await (const _ of res.body ?? []);
            heavyStatuses.push(res.status);
          } catch {
            heavyStatuses.push(CUT);
          }
          heavyWorst = Math.max(heavyWorst, performance.now() - t0);
        }
      }),
    );
    const [beside] = await Promise.all([
      (async () => (await new Promise((resolve) => setTimeout(resolve, 1000)), probing(seconds - 1)))(),
      ...heavy,
    ]);
    const worst = (seen: { ms: number }[]) => Math.max(...seen.map((s) => s.ms));
    const p50 = (seen: { ms: number }[]) => median(seen.map((s) => s.ms));
    const p95 = (seen: { ms: number }[]) => seen.map((s) => s.ms).sort((a, b) => a - b)[Math.floor(seen.length * 0.95)];
    const lists = beside.filter((s) => s.list);
    const timedOut = heavyStatuses.filter((s) => s === 503 || s === CUT).length;
    const failed =
      [...alone, ...beside].filter((s) => !s.ok).length +
      heavyStatuses.filter((s) => s !== 200 && s !== 503 && s !== CUT).length;
    after.push(
      `| cheap requests of another organization, alone (list, token) | | ${f(p50(alone), 1)} | worst ${f(worst(alone), 1)} | |`,
    );
    after.push(
      `| the same beside 4 clients × 4 heavy requests (${heavyStatuses.length} done, worst ${f(heavyWorst / 1000, 1)} s) | | ${f(p50(beside), 1)} | worst ${f(worst(beside), 1)} | |`,
    );
    after.push(
      `| of them, GET /v1/reports alone (${lists.length}; p95 ${f(p95(lists), 1)} ms) | | ${f(p50(lists), 1)} | worst ${f(worst(lists), 1)} | |`,
    );
    targets.push(
      [
        "another organization's /v1/reports beside sixteen heavy ones: worst < 250 ms, p95 < 150 ms",
        `worst ${f(worst(lists))} ms, p95 ${f(p95(lists))} ms (with tokens: worst ${f(worst(beside))} ms)` +
          `${failed ? `, ${failed} failed` : ''}`,
        worst(lists) < 250 && p95(lists) < 150 && failed === 0,
      ],
      [
        'no heavy request beside them times out',
        `${timedOut} of ${heavyStatuses.length}`,
        timedOut === 0 && heavyStatuses.length > 0,
      ],
    );
    fair.child.kill('SIGTERM');
    await new Promise((resolve) => fair.child.once('exit', resolve));
  }
  if (runs('import')) {
    const part = await importPart();
    after.push(...part.rows);
    targets.push(...part.targets);
  }
  if (runs('replicas') && !replicasSkipped()) {
    const part = await replicasPart();
    after.push(...part.rows);
    targets.push(...part.targets);
  }
  const errors = loads.reduce((n, r) => n + r.errors + r.unexpected, 0);
  keepLogs = errors > 0 || keepAnyway;
  if (loads.length > 0) targets.push(['no errors under load', `${errors} errors`, errors === 0]);

  // --- report --------------------------------------------------------------------------------------------------
  const out: string[] = [];
  out.push(machine(embedded ? 'embedded PGlite' : 'PostgreSQL'), '', ...tableHead);
  for (const [name, r] of rows)
    out.push(
      `| ${name} | ${f(r.rps)} | ${f(r.p50, 1)} | ${f(r.p99, 1)} | ${'peakRss' in r && r.peakRss ? f(r.peakRss) : ''} |`,
    );
  out.push(...after);
  out.push(`| idle server | | | | ${f(idleRss)} |`);
  out.push(...targetTable(targets));
  console.log(out.join('\n'));
  process.exitCode = targets.every(([, , met]) => met) ? 0 : 1;
} finally {
  for (const p of processes) p.child.kill('SIGTERM');
  await closeDb();
  if (dataDir) setTimeout(() => rmSync(dataDir, { recursive: true, force: true }), 1000);
}
