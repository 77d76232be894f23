// npm run bench -- --only import: loading facts. `readout import` of a file of 500,000 rows, timed as an operator runs
// it (the CLI's own process), beside PostgreSQL's COPY FROM of the same file into a table of its columns; then a
// restatement of the last 28 days of every creative; the database's bytes per fact; a day of a million creatives,
// with the CLI's peak memory; `readout generate`, with and without a converted report, beside the release before the
// converted rollups. Each on a fresh database: PostgreSQL's (DATABASE_URL's server), else an embedded one at a tenth.
// importGrowth: the growth table's imports.
import { spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { migrate } from '../../src/store/migrate.ts';
import {
  bytesPerFact,
  cli,
  emptyDatabase,
  f,
  factsFile,
  freshDatabase,
  importBench,
  log,
  timedCli,
  timedImport,
  type Part,
} from './importFiles.ts';

export const TARGETS = {
  rate: { name: 'readout import ≥ 100,000 rows/s', bound: 100_000 },
  copy: { name: "readout import ≥ 1/3 of COPY FROM into the facts' shape", bound: 1 / 3 },
  restatement: { name: 'a restatement at the import rate (≥ 100,000 rows/s)', bound: 100_000 },
  generateBefore: {
    name: 'generate with a converted report no slower than the release before the converted rollups (within 5 %)',
    bound: 0.95,
  },
  generateConverted: { name: 'generate with a converted report within 5 % of one without', bound: 0.95 },
};

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
        [TARGETS.rate.name, `${f(rows / importSeconds)} rows/s`, rows / importSeconds >= TARGETS.rate.bound],
        [
          TARGETS.copy.name,
          `${f((keyed / importSeconds) * 100)} % (${f((unlogged / importSeconds) * 100)} % of the unlogged one)`,
          keyed / importSeconds >= TARGETS.copy.bound,
        ],
        [
          TARGETS.restatement.name,
          `${f(restatedRows / restateSeconds)} rows/s`,
          restatedRows / restateSeconds >= TARGETS.restatement.bound,
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
        TARGETS.generateBefore.name,
        beforeRuns.length ? `${f(againstBefore, 2)}× its rate (runs: ${seconds(beforeRuns)} s)` : 'not measured',
        againstBefore >= TARGETS.generateBefore.bound,
      ],
      [
        TARGETS.generateConverted.name,
        `${f(plainSeconds / convertedSeconds, 2)}× the rate (runs: ${seconds(runs)} s)`,
        plainSeconds / convertedSeconds >= TARGETS.generateConverted.bound,
      ],
    ] as [string, string, boolean][],
  };
}
