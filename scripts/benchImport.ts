// npm run bench -- --only import: loading facts. `readout import` of a file of 500,000 rows, timed as an operator runs
// it (the CLI's own process), beside PostgreSQL's COPY FROM of the same file into a table of its columns; then a
// restatement of the last 28 days of every creative; the database's bytes per fact, native and with the report's
// converted currency; a day of a million creatives, with the CLI's peak memory; `readout generate`, with and without
// a converted report, beside the release before the converted rollups. Each on a fresh database: PostgreSQL's
// (DATABASE_URL's server), else an embedded one at a tenth. importGrowth: the growth table's imports.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, createReadStream, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import postgres from 'postgres';
import { runCommand } from '../src/cli/run.ts';
import { migrate } from '../src/store/migrate.ts';
import { openDatabase } from '../src/store/open.ts';
import type { Sql } from '../src/store/database.ts';

type Part = { rows: string[]; targets: [string, string, boolean][] };
const log = (line: string) => process.stderr.write(`bench: import: ${line}\n`);
const f = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
const DAY_MS = 86_400_000;
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
function factsFile(path: string, { creatives, days, version, first = 0, perCampaign, endsAgo = 1 }: FactsShape) {
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
function ecbFile(days: number): string {
  const lines = ['Date,USD,'];
  for (let d = days + 10; d >= 0; d--) {
    const day = new Date(Date.now() - d * DAY_MS);
    lines.push(`${day.toISOString().slice(0, 10)},${(1.1 + Math.sin(d / 17) / 50).toFixed(4)},`);
  }
  return `${lines.join('\n')}\n`;
}

async function cli(sql: Sql, argv: string[], readText?: () => Promise<string>) {
  const out = await runCommand([...argv, '--json'], { sql, now: Date.now(), progress: () => {}, readText });
  if (out.code !== 0) throw new Error(`${argv.join(' ')}: ${out.stderr}`);
  return JSON.parse(out.stdout);
}

/** The process's peak resident memory so far in MB (Linux), or 0 where /proc is not there. */
function peakMb(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
    return line ? Number(line[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** `readout import` as its own process, as an operator runs it: the seconds it took and its peak memory. */
const timedImport = (env: Record<string, string>, org: string, file: string) =>
  timedCli(env, ['import', '--org', org, '--file', file]);

/**
 * A readout command as its own process, as an operator runs it: the seconds it took and its peak memory. (In the
 * bench's own session, after a small generate in it, a generate with converted rollups took five times as long.)
 */
function timedCli(env: Record<string, string>, argv: string[], cwd = '.'): Promise<{ seconds: number; mb: number }> {
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
async function bytesPerFact(sql: Sql) {
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
async function emptyDatabase(label: string): Promise<{
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
async function freshDatabase(label = 'import'): Promise<{
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
async function importBench(days: number) {
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

export async function importPart(): Promise<Part> {
  const out = await loadsPart();
  const generated = await generateRates(process.env.DATABASE_URL ? 1 : 0.1);
  out.rows.push(...generated.rows);
  out.targets.push(...generated.targets);
  return out;
}

async function loadsPart(): Promise<Part> {
  const embedded = !process.env.DATABASE_URL;
  // 20,000 creatives × 25 days on PostgreSQL; a tenth of the creatives embedded.
  const creatives = embedded ? 2000 : 20_000;
  const days = 25;
  const restated = 28;
  const { sql, env, org, work, done } = await importBench(days + restated);
  try {
    const file = join(work, 'facts.csv');
    const rows = factsFile(file, { creatives, days, version: 1 });
    log(`${f(rows)} rows`);
    const { seconds: importSeconds } = await timedImport(env, org, file);
    const restatement = join(work, 'restated.csv');
    const restatedRows = factsFile(restatement, { creatives, days: restated, version: 2 });
    log(`restatement, ${f(restatedRows)} rows`);
    const { seconds: restateSeconds } = await timedImport(env, org, restatement);
    log('the same restatement again: its numbers unchanged');
    const { seconds: repeatSeconds } = await timedImport(env, org, restatement);
    const bytes = await bytesPerFact(sql);
    // The exports' shape: a million creatives on one day, more than the CLI holds (importFile.ts), so its memory is
    // what it keeps while the rest are staged as the file goes.
    const wideCreatives = embedded ? 104_857 : 1_048_575;
    const wide = join(work, 'wide.csv');
    factsFile(wide, { creatives: wideCreatives, days: 1, version: 3, first: 100_000 });
    log(`${f(wideCreatives)} creatives on one day`);
    const wideImport = await timedImport(env, org, wide);
    const out: Part = {
      rows: [
        `| readout import, ${f(rows)} rows (${creatives} creatives × ${days} days, a EUR report) | ` +
          `${f(rows / importSeconds)} rows/s | ${f(importSeconds, 1)} s | | |`,
        `| readout import, restating the last ${restated} days of every creative (${f(restatedRows)} rows) | ` +
          `${f(restatedRows / restateSeconds)} rows/s | ${f(restateSeconds, 1)} s | | |`,
        `| readout import of the same file again, every number as loaded | ` +
          `${f(restatedRows / repeatSeconds)} rows/s | ${f(repeatSeconds, 1)} s | | |`,
        `| readout import of ${f(wideCreatives)} creatives on one day | ${f(wideCreatives / wideImport.seconds)} rows/s | ` +
          `${f(wideImport.seconds, 1)} s | | ${f(wideImport.mb)} (the CLI) |`,
        `| bytes per fact: facts and rollups; the report currency's converted rollups | ` +
          `${f(bytes.native)}; ${f(bytes.converted)} | | | |`,
      ],
      targets: [],
    };
    if (!embedded) {
      // COPY FROM of the same file, into an unlogged table of its columns (PostgreSQL's fastest load), and into a
      // table of the facts' shape: logged, keyed by creative and day as facts are.
      const copySeconds = async (table: string, options: string) => {
        await sql.unsafe(`create ${options} table ${table} (
          day date, platform text, account_id text, account_name text, currency text, campaign_id text,
          campaign_name text, creative_id text, creative_name text, format text, impressions bigint, clicks bigint,
          spend float8, conversions float8, conversion_value float8, video_views bigint, video_completions bigint
          ${options === 'unlogged' ? '' : ', primary key (platform, account_id, campaign_id, creative_id, day)'})`);
        const started = performance.now();
        await pipeline(
          createReadStream(file),
          await sql`copy ${sql(table)} from stdin (format csv, header true)`.writable(),
        );
        return (performance.now() - started) / 1000;
      };
      const unlogged = await copySeconds('copied_unlogged', 'unlogged');
      const keyed = await copySeconds('copied_keyed', '');
      out.rows.push(
        `| COPY FROM of the same file into an unlogged table of its columns | ${f(rows / unlogged)} rows/s | ` +
          `${f(unlogged, 1)} s | | |`,
        `| COPY FROM of the same file into a table of the facts' shape (logged, keyed by creative and day) | ` +
          `${f(rows / keyed)} rows/s | ${f(keyed, 1)} s | | |`,
      );
      out.targets.push(
        ['readout import ≥ 100,000 rows/s', `${f(rows / importSeconds)} rows/s`, rows / importSeconds >= 100_000],
        [
          "readout import ≥ 1/3 of COPY FROM into the facts' shape",
          `${f((keyed / importSeconds) * 100)} % (${f((unlogged / importSeconds) * 100)} % of the unlogged one)`,
          keyed / importSeconds >= 1 / 3,
        ],
        [
          'a restatement at the import rate',
          `${f(restatedRows / restateSeconds)} rows/s`,
          restatedRows / restateSeconds >= 100_000,
        ],
      );
    }
    return out;
  } finally {
    await done();
  }
}

/**
 * The release before the converted rollups (the parent of the commit that added migration 019), checked out in a
 * folder of its own with its own dependencies: what "generate no slower than before the converted rollups" is
 * measured against. A string saying why where it cannot be had (no git history here, no registry).
 */
function releaseBeforeConvertedRollups(): { dir: string; remove: () => void } | string {
  const git = (...args: string[]) => spawnSync('git', args, { encoding: 'utf8' });
  const added = git('log', '-1', '--format=%H', '--diff-filter=A', '--', 'sql/migrations/019_converted_rollups.sql');
  const commit = added.stdout?.trim();
  if (added.status !== 0 || !commit) return 'no git history of migration 019 here';
  const dir = mkdtempSync(join(tmpdir(), 'readout-bench-before-019-'));
  const remove = () => {
    git('worktree', 'remove', '--force', dir);
    rmSync(dir, { recursive: true, force: true });
    git('worktree', 'prune');
  };
  if (git('worktree', 'add', '--detach', dir, `${commit}^`).status !== 0) {
    remove();
    return 'git could not check it out';
  }
  const installed = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'ignore' });
  if (installed.status !== 0) {
    remove();
    return 'its dependencies could not be installed';
  }
  return { dir, remove };
}

/**
 * `readout generate` of the bench's shape over 100 days (1M facts, a tenth embedded), each on a fresh database, in
 * the order before, plain, converted, converted, plain, before, so that none inherits another's checkpoints:
 * - before: the release before the converted rollups, whose writes a report's currency did not touch;
 * - plain: today, into an organization without a report in another currency;
 * - converted: today, into one whose EUR report covers its accounts (made first, a day of each, so the load keeps
 *   converted rollups).
 */
export async function generateRates(scale: number) {
  const creatives = Math.round(10_000 * scale);
  const counts = (days: number, campaigns: number, creatives: number) => [
    '--accounts',
    '20',
    '--campaigns',
    String(campaigns),
    '--creatives',
    String(creatives),
    '--days',
    String(days),
  ];
  const load = counts(100, Math.round(2000 * scale), creatives);
  const today = async (withReport: boolean) => {
    const { db, env, drop } = await freshDatabase('generate');
    const sql = db.sql;
    try {
      await migrate(sql);
      const org = (await cli(sql, ['org', 'create', '--name', 'Generate', '--plan', 'enterprise'])).organizationId;
      if (withReport) {
        await cli(sql, ['generate', '--org', org, ...counts(1, 20, 20), '--currencies', 'USD,EUR']);
        await sql`insert into reports (organization_id, name, kind, currency, metrics)
          values (${org}, 'Generate bench', 'standard', 'EUR', ${['impressions', 'clicks', 'spend']})`;
        await sql`insert into report_ad_accounts (organization_id, report_id, ad_account_id)
          select a.organization_id, r.id, a.id from ad_accounts a
          join reports r on r.organization_id = a.organization_id where a.organization_id = ${org}`;
      }
      log(`generate, ${withReport ? 'a EUR report' : 'no report currency'}`);
      return (await timedCli(env, ['generate', '--org', org, ...load, '--currencies', 'USD,EUR'])).seconds;
    } finally {
      await drop();
    }
  };
  // Its generate has no --currencies: every account is in the organization's currency, which cost it nothing more.
  const before = async (dir: string) => {
    const { env, drop } = await emptyDatabase('generate_before');
    try {
      const argv = ['--import', 'tsx', 'src/cli.ts', 'org', 'create', '--name', 'Before', '--plan', 'enterprise'];
      const made = spawnSync('node', [...argv, '--json'], {
        cwd: dir,
        env: { ...process.env, ...env },
        encoding: 'utf8',
      });
      if (made.status !== 0) throw new Error(`the release before 019: org create: ${made.stderr}`);
      log('generate, the release before the converted rollups');
      return (await timedCli(env, ['generate', '--org', JSON.parse(made.stdout).organizationId, ...load], dir)).seconds;
    } finally {
      await drop();
    }
  };
  const release = releaseBeforeConvertedRollups();
  let runs: number[];
  const beforeRuns: number[] = [];
  try {
    if (typeof release !== 'string') beforeRuns.push(await before(release.dir));
    runs = [await today(false), await today(true), await today(true), await today(false)];
    if (typeof release !== 'string') beforeRuns.push(await before(release.dir));
  } finally {
    if (typeof release !== 'string') release.remove();
  }
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const plainSeconds = (runs[0] + runs[3]) / 2;
  const convertedSeconds = (runs[1] + runs[2]) / 2;
  const rows = creatives * 100;
  const rate = (seconds: number) => f(rows / seconds);
  const seconds = (values: number[]) => values.map((r) => f(r, 1)).join(', ');
  const againstBefore = beforeRuns.length ? mean(beforeRuns) / convertedSeconds : 0;
  return {
    rows: [
      `| readout generate, ${f(rows)} facts: no report currency / a EUR report over them (mean of 2) | ` +
        `${rate(plainSeconds)} / ${rate(convertedSeconds)} rows/s | ` +
        `${f(plainSeconds, 1)} / ${f(convertedSeconds, 1)} s | | |`,
      beforeRuns.length
        ? `| the same generate by the release before the converted rollups (mean of 2) | ` +
          `${rate(mean(beforeRuns))} rows/s | ${f(mean(beforeRuns), 1)} s | | |`
        : `| the same generate by the release before the converted rollups | not measured: ${release} | | | |`,
    ],
    targets: [
      [
        'generate with a converted report no slower than the release before the converted rollups (within 5 %)',
        beforeRuns.length ? `${f(againstBefore, 2)}× its rate (runs: ${seconds(beforeRuns)} s)` : 'not measured',
        againstBefore >= 0.95,
      ],
      [
        'generate with a converted report within 5 % of one without',
        `${f(plainSeconds / convertedSeconds, 2)}× the rate (runs: ${seconds(runs)} s)`,
        plainSeconds / convertedSeconds >= 0.95,
      ],
    ] as [string, string, boolean][],
  };
}

/**
 * The write half of the growth table: the facts of the bench's data set shape (five creatives a campaign, 400 days)
 * imported in steps to an eighth, a quarter, a half and all of its 10,000 creatives × scale; each step's import rate
 * and the database's bytes per fact after it. Creatives from the 20th on: the first 20 made the accounts.
 */
export async function importGrowth(scale: number): Promise<string[]> {
  const days = 400;
  const shares = [1 / 8, 1 / 4, 1 / 2, 1];
  const { sql, env, org, work, done } = await importBench(days + 1);
  const cells: string[][] = [[], [], []];
  let daily = '';
  try {
    let held = 0;
    for (const share of shares) {
      const creatives = Math.round(10_000 * scale * share) - held;
      const file = join(work, `growth-${share}.csv`);
      const rows = factsFile(file, { creatives, days, version: 1, first: 20 + held, perCampaign: 5 });
      held += creatives;
      log(`growth: ${f(rows)} rows, to ${f(held * days)} facts`);
      const { seconds } = await timedImport(env, org, file);
      rmSync(file);
      const bytes = await bytesPerFact(sql);
      cells[0].push(f(held * days));
      cells[1].push(`${f(rows / seconds)} (${f(seconds, 1)} s)`);
      cells[2].push(`${f(bytes.native)}; ${f(bytes.converted)}`);
    }
    // What an agency's daily load costs at the largest step: today's row of every creative.
    const file = join(work, 'growth-today.csv');
    const rows = factsFile(file, { creatives: held, days: 1, version: 1, first: 20, perCampaign: 5, endsAgo: 0 });
    log(`growth: a day of ${f(rows)} creatives`);
    const { seconds } = await timedImport(env, org, file);
    daily = `${f(rows / seconds)} (${f(seconds, 1)} s)`;
  } finally {
    await done();
  }
  return [
    '',
    `| facts | ${cells[0].join(' | ')} |`,
    `|---|${shares.map(() => '---:').join('|')}|`,
    `| import of the facts added to get here, rows/s | ${cells[1].join(' | ')} |`,
    `| bytes a fact: facts and rollups; the EUR report's converted rollups | ${cells[2].join(' | ')} |`,
    `| then a day of every creative, rows/s | ${shares.map((_, i) => (i === shares.length - 1 ? daily : '')).join(' | ')} |`,
  ];
}
