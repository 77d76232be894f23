// A fresh, migrated database for one test suite: in-memory PGlite, or a new database on TEST_DATABASE_URL.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import postgres from 'postgres';
import { cli } from './fixtures.ts';
import type { Database } from '../../src/store/database.ts';
import { openDatabase } from '../../src/store/open.ts';
import { migrate } from '../../src/store/migrate.ts';

export const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/** Blocks every reader of report numbers: the facts and each rollup the data queries read. */
export const LOCK_FACTS =
  'lock table facts, facts_monthly, facts_campaign_daily, facts_campaign_monthly in access exclusive mode';

export type TestDatabase = Database & {
  /** A URL another process can use (real PostgreSQL, or the embedded socket). */
  url: string;
  /** What `readout demo --json` printed, when the database was made with the demo in it. */
  demo?: Record<string, string>;
};

function randomName() {
  return `readout_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/** A new empty database on the test server, dropped by the returned drop(). */
export async function freshDatabaseUrl(): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
  const name = randomName();
  await admin.unsafe(`create database ${name}`);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** migrated: false leaves the schema empty; demoAt: seeds the demo organization as of that time (a test clock). */
export type FreshOptions = { migrated?: boolean; max?: number; demoAt?: number };

export async function freshDatabase(options: FreshOptions = {}): Promise<TestDatabase> {
  if (!onPostgres) return embeddedDatabase(options);
  const fresh = await freshDatabaseUrl();
  const database = await openDatabase({ databaseUrl: fresh.url, max: options.max });
  const demo = await prepare(database, options);
  return {
    ...database,
    url: fresh.url,
    demo,
    async close() {
      await database.close();
      await fresh.drop();
    },
  };
}

/** Migrates, then seeds the demo, as the options ask. */
async function prepare(database: Database, options: FreshOptions): Promise<Record<string, string> | undefined> {
  if (options.migrated === false) return undefined;
  await migrate(database.sql);
  if (options.demoAt === undefined) return undefined;
  return cli(database.sql, ['demo'], options.demoAt);
}

type Template = { data: Blob; demo?: Record<string, string> };
const templates = new Map<string, Promise<Template>>();

/**
 * An embedded database starts from a dump of one made before with the same options: a new PGlite runs initdb, which
 * took most of the test suite's time. Dumps are made once a process, or once a run where npm test gives the
 * processes a folder to share them in (READOUT_TEST_TEMPLATES).
 */
async function embeddedDatabase(options: FreshOptions): Promise<TestDatabase> {
  const key =
    options.migrated === false ? 'empty' : options.demoAt === undefined ? 'migrated' : `demo-${options.demoAt}`;
  if (!templates.has(key)) templates.set(key, sharedTemplate(key, options));
  const template = await templates.get(key)!;
  const database = await openDatabase({ max: options.max, template: template.data });
  const { host, port } = database.sql.options;
  return { ...database, url: `postgres://postgres@${host[0]}:${port[0]}/postgres`, demo: template.demo };
}

async function sharedTemplate(key: string, options: FreshOptions): Promise<Template> {
  const folder = process.env.READOUT_TEST_TEMPLATES;
  if (folder) {
    try {
      const [data, demo] = await Promise.all([
        readFile(join(folder, `${key}.tar`)),
        readFile(join(folder, `${key}.json`), 'utf8'),
      ]);
      return { data: new Blob([data]), demo: JSON.parse(demo) ?? undefined };
    } catch {}
  }
  const database = await openDatabase({});
  try {
    const demo = await prepare(database, options);
    const data = await database.dump!();
    if (folder) {
      // Written under a name of its own, then renamed: another process never reads half a file.
      await mkdir(folder, { recursive: true });
      const own = `${process.pid}-${Math.random().toString(36).slice(2)}`;
      await writeFile(join(folder, `${own}.tar`), new Uint8Array(await data.arrayBuffer()));
      await writeFile(join(folder, `${own}.json`), JSON.stringify(demo ?? null));
      await rename(join(folder, `${own}.json`), join(folder, `${key}.json`));
      await rename(join(folder, `${own}.tar`), join(folder, `${key}.tar`));
    }
    return { data, demo };
  } finally {
    await database.close();
  }
}
