// The import bench's files, databases and timed commands (import.ts, growth.ts): a facts file of a given shape, an ECB
// rates file, `readout import` and other commands timed as their own processes with their peak memory, the
// database's bytes per fact, and a fresh database on DATABASE_URL's server or embedded.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { runCommand } from '../../src/cli/run.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openDatabase } from '../../src/store/open.ts';
import type { Sql } from '../../src/store/database.ts';

export type Part = { rows: string[]; targets: [string, string, boolean][] };
export const log = (line: string) => process.stderr.write(`bench: import: ${line}\n`);
export const f = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
export const DAY_MS = 86_400_000;
const HEADER =
  'date,platform,account_id,account_name,currency,campaign_id,campaign_name,creative_id,creative_name,format,' +
  'impressions,clicks,spend,conversions,conversion_value,video_views,video_completions';

type FactsShape = {
  creatives: number;
  days: number;
  version: number;
  first?: number;
  perCampaign?: number;
  /** The last day: this many days ago (default 1, yesterday). */
  endsAgo?: number;
};
/**
 * Creatives `first` to `first + creatives` × days rows ending yesterday, over 20 accounts (even ones in USD, odd in
 * EUR); version moves the numbers. A campaign holds every 2,000th creative, or with perCampaign that many in a row.
 * Written a day at a time: a growth step's file is millions of lines.
 */
export function factsFile(path: string, { creatives, days, version, first = 0, perCampaign, endsAgo = 1 }: FactsShape) {
  const fd = openSync(path, 'w');
  writeSync(fd, `${HEADER}\n`);
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  for (let d = days - 1 + endsAgo; d >= endsAgo; d--) {
    const day = new Date(today - d * DAY_MS).toISOString().slice(0, 10);
    const lines: string[] = [];
    for (let c = first; c < first + creatives; c++) {
      const campaign = perCampaign ? Math.floor(c / perCampaign) : c % 2000;
      const account = campaign % 20;
      const impressions = 1000 + ((c * 7 + d * 13 + version) % 5000);
      const clicks = impressions % 97;
      const spend = ((impressions * 3 + version) % 10000) / 100;
      lines.push(
        `${day},meta-ads,acc-${account},Account ${account},${account % 2 ? 'EUR' : 'USD'},cmp-${campaign},` +
          `Campaign ${campaign},cr-${c},Creative ${c},${c % 5 ? 'image' : 'video'},${impressions},${clicks},` +
          `${spend},${clicks % 7},${(spend * 1.5).toFixed(2)},${c % 5 ? 0 : impressions >> 1},${c % 5 ? 0 : impressions >> 2}\n`,
      );
    }
    writeSync(fd, lines.join(''));
  }
  closeSync(fd);
  return creatives * days;
}

/** Daily USD-per-EUR rates as the ECB publishes them, from before the facts' first day to today. */
export function ecbFile(days: number): string {
  const lines = ['Date,USD,'];
  for (let d = days + 10; d >= 0; d--) {
    const day = new Date(Date.now() - d * DAY_MS);
    lines.push(`${day.toISOString().slice(0, 10)},${(1.1 + Math.sin(d / 17) / 50).toFixed(4)},`);
  }
  return `${lines.join('\n')}\n`;
}

export async function cli(sql: Sql, argv: string[], readText?: () => Promise<string>) {
  const out = await runCommand([...argv, '--json'], { sql, now: Date.now(), progress: () => {}, readText });
  if (out.code !== 0) throw new Error(`${argv.join(' ')}: ${out.stderr}`);
  return JSON.parse(out.stdout);
}

/** The process's peak resident memory so far in MB (Linux), or 0 where /proc is not there. */
export function peakMb(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
    return line ? Number(line[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** `readout import` as its own process, as an operator runs it: the seconds it took and its peak memory. */
export const timedImport = (env: Record<string, string>, org: string, file: string) =>
  timedCli(env, ['import', '--org', org, '--file', file]);

/**
 * A readout command as its own process, as an operator runs it: the seconds it took and its peak memory. (In the
 * bench's own session, after a small generate in it, a generate with converted rollups took five times as long.)
 */
export function timedCli(
  env: Record<string, string>,
  argv: string[],
  cwd = '.',
): Promise<{ seconds: number; mb: number }> {
  const started = performance.now();
  const child = spawn('node', ['--import', 'tsx', 'src/cli.ts', ...argv], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  let mb = 0;
  const watch = setInterval(() => (mb = Math.max(mb, peakMb(child.pid!))), 100);
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) =>
    child.on('exit', (code) => {
      clearInterval(watch);
      if (code === 0) resolve({ seconds: (performance.now() - started) / 1000, mb });
      else reject(new Error(`${argv[0]}: ${stderr}`));
    }),
  );
}

const FACT_TABLES = ['facts', 'facts_monthly', 'facts_campaign_monthly', 'facts_campaign_daily', 'facts_account_daily'];
export async function bytesPerFact(sql: Sql) {
  const size = async (tables: string[]) =>
    Number((await sql.unsafe(`select ${tables.map((t) => `pg_total_relation_size('${t}')`).join(' + ')} as n`))[0].n);
  const [{ n }] = await sql`select count(*)::int as n from facts`;
  // The spans (migration 046) keep native and converted spans in one table: shared by the creatives they hold.
  const [spans] = await sql`
    select coalesce(sum(cardinality(s.creative_ids)) filter (where s.currency = a.currency), 0)::float8
           / greatest(sum(cardinality(s.creative_ids)), 1) as native_share
    from facts_spans s join ad_accounts a on a.id = s.ad_account_id`;
  const spanBytes = await size(['facts_spans', 'facts_campaign_spans']);
  const native = (await size(FACT_TABLES)) + spanBytes * spans.native_share;
  const converted =
    (await size(FACT_TABLES.slice(1).map((t) => `${t}_converted`))) + spanBytes * (1 - spans.native_share);
  return { native: native / n, converted: converted / n };
}

/** An empty database: on DATABASE_URL's server, or an embedded one's folder; dropped after. label: its name's. */
export async function emptyDatabase(label: string): Promise<{
  open: () => ReturnType<typeof openDatabase>;
  env: Record<string, string>;
  drop: () => Promise<void>;
}> {
  if (process.env.DATABASE_URL) {
    const name = `readout_bench_${label}_${process.pid}`;
    const admin = postgres(process.env.DATABASE_URL, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    const url = new URL(process.env.DATABASE_URL);
    url.pathname = `/${name}`;
    return {
      open: () => openDatabase({ databaseUrl: url.href, poolMode: 'session' }),
      env: { DATABASE_URL: url.href },
      drop: async () => {
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end();
      },
    };
  }
  const dataDir = mkdtempSync(join(tmpdir(), `readout-bench-${label}-`));
  return {
    open: () => openDatabase({ dataDir }),
    env: { DATA_DIR: dataDir, DATABASE_URL: '' },
    drop: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** A fresh database, open here: on DATABASE_URL's server, or embedded in a folder of its own; dropped after. */
export async function freshDatabase(label = 'import'): Promise<{
  db: Awaited<ReturnType<typeof openDatabase>>;
  env: Record<string, string>;
  drop: () => Promise<void>;
}> {
  const empty = await emptyDatabase(label);
  const db = await empty.open();
  return {
    db,
    env: empty.env,
    drop: async () => {
      await db.close();
      await empty.drop();
    },
  };
}

/**
 * A fresh database holding an organization whose 20 accounts (created by a one-day import) a report in EUR covers, so
 * every later import keeps its converted rollups too; rates for the last `days` days.
 */
export async function importBench(days: number) {
  const work = mkdtempSync(join(tmpdir(), 'readout-bench-import-files-'));
  const { db, env, drop } = await freshDatabase();
  const sql = db.sql;
  const done = async () => {
    await drop();
    rmSync(work, { recursive: true, force: true });
  };
  try {
    await migrate(sql);
    const org = (await cli(sql, ['org', 'create', '--name', 'Import bench', '--plan', 'enterprise'])).organizationId;
    await cli(sql, ['fx', 'import', '--file', 'eurofxref-hist.csv'], async () => ecbFile(days));
    const accounts = join(work, 'accounts.csv');
    factsFile(accounts, { creatives: 20, days: 1, version: 0 });
    await timedImport(env, org, accounts);
    await sql`insert into reports (organization_id, name, kind, currency, metrics)
      values (${org}, 'Import bench', 'standard', 'EUR', ${['impressions', 'clicks', 'spend']})`;
    await sql`insert into report_ad_accounts (organization_id, report_id, ad_account_id)
      select a.organization_id, r.id, a.id from ad_accounts a join reports r on r.organization_id = a.organization_id
      where a.organization_id = ${org}`;
    return { sql, env, org, work, done };
  } catch (error) {
    await done();
    throw error;
  }
}
