import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openDatabase } from '../src/store/open.ts';
import { migrate } from '../src/store/migrate.ts';
import { migrationFiles } from '../src/store/sqlFiles.ts';
import { freshDatabase, type TestDatabase } from './support/database.ts';

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

// A migration that has shipped is never edited: an install that applied it keeps what it applied, so a change made
// to the file would reach new installs only. Fixes go in a new migration; a new file adds its line here.
const SHIPPED: Record<string, string> = {
  '001_foundation': '0cb0133b3fb4bd74',
  '002_identity': 'a1ca75d1e4007bfd',
  '003_plans_and_quota': 'b4696758be8e488e',
  '004_catalogue': 'ad0d9ef724ff5b48',
  '005_report_definition': '536602ffef77787a',
  '006_report_facts': 'ca59205b86a4ea9e',
  '007_monthly_rollup': '2071b54417e74512',
  '008_campaign_rollups': '44ad7a8c96d7d7c4',
  '009_hot_path': '8e1e29e73d483908',
  '010_report_versions': '3c6f2c719a01ec3e',
  '011_quota_leases': '1fb5c1998bc33065',
  '012_rendered_rows': '587a2ea504da80d1',
  '013_cheaper_escapes': '563a65a334fdb740',
  '014_token_issuers': '6cd0bb999fe94727',
  '015_exchange_rates': '243b411dfbab3049',
  '016_xlsx_text_as_is': '7cb62fcdb8ade8f2',
  '017_drop_unused_functions': 'd1fb95b5876fde39',
  '018_delete_organization': 'bfcb7419b2cc2aea',
  '019_converted_rollups': '03484cd4690b8108',
  '020_formula_functions': '958a03f070b810ba',
  '021_periods_and_changes': '61bfc7767f71ff40',
  '022_account_daily_rollups': '59daf9e1a20955a6',
  '023_report_scope_fingerprint': '2c6d6ee0326e745a',
  '024_writers_lock': 'bd2d21c20bc3598e',
  '025_planned_bounds': '70a8167d09ea31e3',
  '026_faster_loads': '917be2675b68d4ff',
  '027_account_sources': '95ef8e4800fdcbf9',
  '028_spans': '138a1b29227c0047',
  '029_span_rebuild': '06292112d42ca2e0',
  '030_span_reads': 'a3253b5dac4e5151',
  '031_hashed_month_rebuild': 'd3a9cc473ba2a1fa',
  '032_span_reach': 'f172ff503e7f7a52',
  '033_custom_rebuild_plans': '0466f37f0ff5e9e8',
  '034_changed_days_hashed': '83fe76a50df09a46',
  '035_answer_creatives': 'fc2bff82e9ef2164',
  '036_long_spans': '1edd36c94afbb3d7',
  '037_analyze_changed': '28a0274d8ab4baf6',
  '038_hashed_rebuilds': '5f79594a1b05b094',
  '039_months_from_spans': 'a76f74491e85cc41',
  '040_lighter_analysis': '43c7e51ca6e74cb6',
  '041_campaign_spans_from_below': '5420e18806f58941',
  '042_one_facts_trigger': 'a242aa0430bba73b',
  '043_changed_days_hashed': '06e4f98b6e5358ec',
  '044_update_days_unjoined': '5fb5799533f251e0',
  '045_one_key_for_a_parent': '78e97bc30cbf9f28',
  '046_spans_as_arrays': '5018fe2c517ef38e',
  '047_declared_base_metrics': 'c6e68e4224ce5a00',
  '048_declared_rollups': 'a8fc9a5d4e82eeaa',
  '049_declared_when_declared': '7e1e1a1f923b8a88',
  '050_declared_by_account_and_creative': '4fdd4bdee9cc43af',
  '051_analyze_declared': 'fab8ad8296ada1bb',
  '052_declared_campaign_spans': '0f187615d63c1d12',
};

it('shipped migrations are unchanged, and every migration is listed as shipped', () => {
  for (const { name } of migrationFiles().filter((f) => !f.name.startsWith('lattice-'))) {
    const digest = createHash('sha256')
      .update(readFileSync(`sql/migrations/${name}.sql`))
      .digest('hex')
      .slice(0, 16);
    assert.is(
      digest,
      SHIPPED[name],
      `sql/migrations/${name}.sql ${SHIPPED[name] ? 'was edited after it shipped' : 'needs its line in SHIPPED'}`,
    );
  }
});

it.run();
