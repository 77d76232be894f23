import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openDatabase } from '../src/database.ts';
import { migrate } from '../src/migrate.ts';
import { migrationFiles } from '../src/sqlFiles.ts';
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
  assert.equal(applied, migrationFiles().map((f) => f.name));
  const recorded = await db.sql`select name from schema_migrations order by name`;
  assert.equal(recorded.map((r) => r.name), applied);
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

it.run();
