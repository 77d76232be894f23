// A fresh, migrated database for one test suite: in-memory PGlite, or a new database on TEST_DATABASE_URL.
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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

/** A new database on the test server, empty or a copy of template, dropped by the returned drop(). */
export async function freshDatabaseUrl(template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
  const name = randomName();
  await admin.unsafe(`create database ${name}${template ? ` template ${template}` : ''}`);
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

/**
 * A database for the command-line and server processes a test starts: a fresh one on TEST_DATABASE_URL's server, or
 * an embedded folder of its own; env is the environment that names it, remove() drops it.
 */
export async function processDatabase(): Promise<{ env: Record<string, string>; remove(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'readout-'));
  const fresh = onPostgres ? await freshDatabaseUrl() : undefined;
  const env = { ...process.env, ...(fresh ? { DATABASE_URL: fresh.url } : { DATA_DIR: dir }) } as Record<
    string,
    string
  >;
  delete env.TEST_DATABASE_URL;
  delete env.FORCE_COLOR;
  return {
    env,
    async remove() {
      rmSync(dir, { recursive: true, force: true });
      await fresh?.drop();
    },
  };
}

/** migrated: false leaves the schema empty; demoAt: seeds the demo organization as of that time (a test clock). */
export type FreshOptions = { migrated?: boolean; max?: number; demoAt?: number };

export async function freshDatabase(options: FreshOptions = {}): Promise<TestDatabase> {
  if (!onPostgres) return embeddedDatabase(options);
  const template = options.migrated === false ? undefined : await postgresTemplate(options);
  const fresh = await freshDatabaseUrl(template?.name);
  const database = await openDatabase({ databaseUrl: fresh.url, max: options.max });
  const demo = template ? template.demo : await prepare(database, options);
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

/**
 * On PostgreSQL a test database is a copy (CREATE DATABASE … TEMPLATE) of one migrated, and seeded as options ask,
 * once a run: npm test names the run (READOUT_TEST_RUN) and drops its templates at the end; a file run alone makes
 * its own, named for its process, and leaves them. The first process to need one makes it under an advisory lock.
 */
async function postgresTemplate(options: FreshOptions): Promise<{ name: string; demo?: Record<string, string> }> {
  const run = process.env.READOUT_TEST_RUN ?? `p${process.pid}`;
  const name = `readout_template_${run}_${options.demoAt === undefined ? 'migrated' : `demo_${options.demoAt}`}`;
  const admin = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
  try {
    return await admin.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtext(${name}))`;
      const [made] =
        await tx`select shobj_description(oid, 'pg_database') as demo from pg_database where datname = ${name}`;
      if (made?.demo) return { name, demo: JSON.parse(made.demo) ?? undefined };
      // CREATE DATABASE cannot run in a transaction: another connection makes it while this one holds the lock.
      const maker = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
      try {
        if (made) await maker.unsafe(`drop database ${name} with (force)`);
        await maker.unsafe(`create database ${name}`);
        const url = new URL(process.env.TEST_DATABASE_URL!);
        url.pathname = `/${name}`;
        const database = await openDatabase({ databaseUrl: url.toString(), max: 1 });
        let demo: Record<string, string> | undefined;
        try {
          demo = await prepare(database, options);
        } finally {
          await database.close();
        }
        // Marked made only once whole: a template half made by a process that died is made again under a new run.
        await maker.unsafe(`comment on database ${name} is '${JSON.stringify(demo ?? null).replace(/'/g, "''")}'`);
        return { name, demo };
      } finally {
        await maker.end();
      }
    });
  } finally {
    await admin.end();
  }
}

/** Drops the templates of a run (npm test, at its end). */
export async function dropPostgresTemplates(run: string): Promise<void> {
  const admin = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
  try {
    const names = await admin`select datname from pg_database where datname like ${`readout_template_${run}_%`}`;
    for (const { datname } of names) await admin.unsafe(`drop database if exists ${datname} with (force)`);
  } finally {
    await admin.end();
  }
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
