import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openDatabase } from '../src/store/open.ts';
import { migrate } from '../src/store/migrate.ts';
import { migrationFiles } from '../src/store/sqlFiles.ts';
import { freshDatabase, type TestDatabase } from './support/database.ts';
import { statementsOf } from './support/sqlStatements.ts';

const it = suite<{ db: TestDatabase }>('migrations');
it.before.each(async (ctx) => {
  ctx.db = await freshDatabase({ migrated: false });
});
it.after.each(async (ctx) => ctx.db.close());

const files = [
  { name: '001_first', text: 'create table first (id int primary key); insert into first values (1);' },
  { name: '002_second', text: 'create table second (id int primary key);' },
];

it('applies every migration of sql/migrations in order and records them', async ({ db }) => {
  const applied = await migrate(db.sql);
  assert.equal(
    applied,
    migrationFiles().map((f) => f.name),
  );
  const recorded = await db.sql`select name from schema_migrations order by name`;
  assert.equal(
    recorded.map((r) => r.name),
    applied,
  );
});

it('a second run applies nothing', async ({ db }) => {
  assert.equal(await migrate(db.sql, files), ['001_first', '002_second']);
  assert.equal(await migrate(db.sql, files), []);
  assert.equal((await db.sql`select count(*)::int as n from first`)[0].n, 1);
});

it('only new files are applied on a later start', async ({ db }) => {
  await migrate(db.sql, files.slice(0, 1));
  assert.equal(await migrate(db.sql, files), ['002_second']);
});

it('two processes starting together apply each migration exactly once', async ({ db }) => {
  const other = await openDatabase({ databaseUrl: db.url, max: 1 });
  try {
    const results = await Promise.all([migrate(db.sql, files), migrate(other.sql, files)]);
    assert.equal(results.flat().sort(), ['001_first', '002_second']);
    assert.equal((await db.sql`select count(*)::int as n from first`)[0].n, 1);
  } finally {
    await other.sql.end();
  }
});

it('a failing migration leaves nothing half-applied', async ({ db }) => {
  const broken = [...files, { name: '003_broken', text: 'create table third (id int); select nonsense from nowhere;' }];
  try {
    await migrate(db.sql, broken);
    assert.unreachable('should have failed');
  } catch (error) {
    assert.instance(error, Error);
  }
  const tables = await db.sql`select table_name from information_schema.tables where table_name in ('first', 'third')`;
  assert.equal(tables.length, 0);
});

// A migration that has shipped never changes what it runs: an install that applied it keeps what it applied, so a
// change would reach new installs only. Fixes go in a new migration; a new file adds its line here. Its comments may
// be reworded (they say what and why, not when), so the pin is a digest of its statements alone (statementsOf).
const SHIPPED: Record<string, string> = {
  '001_foundation': '354b7196c9ba5fb4',
  '002_identity': '4a634c0c067f5cbc',
  '003_plans_and_quota': 'c045a2095010a24a',
  '004_catalogue': '130a95571acdbb8d',
  '005_report_definition': 'bf39c0c1b0c09304',
  '006_report_facts': '3c3679c7e44a8ba2',
  '007_monthly_rollup': '09480385ee2f3994',
  '008_campaign_rollups': '8eb1dc534777a21b',
  '009_hot_path': '7269fc89821cc1fe',
  '010_report_versions': '6a9e5596beba2a60',
  '011_quota_leases': '94819cb5269dcefb',
  '012_rendered_rows': '4de1234ba202d345',
  '013_cheaper_escapes': '3e486d191abb57b5',
  '014_token_issuers': '21df2e27ded5488e',
  '015_exchange_rates': 'c704a3e6e0b11e22',
  '016_xlsx_text_as_is': 'f73eb51ced5767db',
  '017_drop_unused_functions': '3fd41f1dde70c51b',
  '018_delete_organization': '9081be10a6cf7d28',
  '019_converted_rollups': '4f0155887a2e2700',
  '020_formula_functions': '3f64c9ee7117a14a',
  '021_periods_and_changes': '375933d9903846c4',
  '022_account_daily_rollups': '7f56bb8ee794bf75',
  '023_report_scope_fingerprint': '2f26b68ca69be149',
  '024_writers_lock': 'df941fbdbf7e33c7',
  '025_planned_bounds': '3bc076abf6d5183c',
  '026_faster_loads': '1e8371037c04367f',
  '027_account_sources': '9c9f1d1a708a6d1b',
  '028_spans': '324ea0078384a0ff',
  '029_span_rebuild': '56b141f39df511c1',
  '030_span_reads': 'a54b6ac65dd0841f',
  '031_hashed_month_rebuild': '94d193ee9bf3a42a',
  '032_span_reach': 'd168a5ff69e8bb84',
  '033_custom_rebuild_plans': 'f5ae80a29e13765d',
  '034_changed_days_hashed': '8035c5a4f0b1e9e3',
  '035_answer_creatives': 'f0c54cbf00fa39ba',
  '036_long_spans': '539a5b6653f21365',
  '037_analyze_changed': 'f86fdefbcd905deb',
  '038_hashed_rebuilds': '63e7aae8ac489378',
  '039_months_from_spans': 'c5e53ca2c052dc88',
  '040_lighter_analysis': '3fafbf16617e58ad',
  '041_campaign_spans_from_below': '9b4c665fa0ceebcf',
  '042_one_facts_trigger': '3b8e511191b22de2',
  '043_changed_days_hashed': '4e996e122240086f',
  '044_update_days_unjoined': '358facc26b04a006',
  '045_one_key_for_a_parent': '5c6d14c23e858b05',
  '046_spans_as_arrays': '2eb0a044ac2fa158',
  '047_declared_base_metrics': '47f21f6dadefafa6',
  '048_declared_rollups': 'ec249b76f864196a',
  '049_declared_when_declared': '7f2ff6e283eb4eb7',
  '050_declared_by_account_and_creative': 'c6a213dc4e493f9b',
  '051_analyze_declared': '1ba495849f46af54',
  '052_declared_campaign_spans': '8be1955945532a9d',
  '053_declared_creative_spans': 'e12d486cd8b459be',
};

const pinned = (name: string) =>
  createHash('sha256')
    .update(statementsOf(readFileSync(`sql/migrations/${name}.sql`, 'utf8')))
    .digest('hex')
    .slice(0, 16);

it('shipped migrations run what they ran, and every migration is listed as shipped', () => {
  for (const { name } of migrationFiles().filter((f) => !f.name.startsWith('lattice-'))) {
    const message = SHIPPED[name]
      ? 'runs other statements than it shipped with'
      : `needs its line in SHIPPED: '${name}': '${pinned(name)}',`;
    assert.is(pinned(name), SHIPPED[name], `sql/migrations/${name}.sql ${message}`);
  }
});

// Comments say what a migration does and why; timings belong in BENCHMARKS.md and history in git log.
const TIMING = /\d(\.\d+)? ?(ms|µs|s|seconds|minutes)\b|\d×|times as (long|fast)/;
const HISTORY = /\b(until now|used to|as before|any more|no longer|this session)\b/i;

it('migration comments carry no timings and no history', () => {
  for (const { name } of migrationFiles().filter((f) => !f.name.startsWith('lattice-'))) {
    const comments = readFileSync(`sql/migrations/${name}.sql`, 'utf8')
      .split('\n')
      .filter((line) => line.trimStart().startsWith('--'));
    for (const line of comments) {
      assert.not.ok(TIMING.test(line) || HISTORY.test(line), `sql/migrations/${name}.sql: ${line.trim()}`);
    }
  }
});

it('a statement is pinned, a comment is not', () => {
  const text = "create table t (a int); -- why\n/* more */ insert into t values (1); select '-- kept';";
  assert.is(statementsOf(text), "create table t (a int); insert into t values (1); select '-- kept';");
  assert.is.not(statementsOf(text.replace('1', '2')), statementsOf(text));
});

it.run();
