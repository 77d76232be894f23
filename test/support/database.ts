// A fresh, migrated database for one test suite: in-memory PGlite, or a new database on TEST_DATABASE_URL.
import postgres from 'postgres';
import { openDatabase, type Database } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';

export const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/** Blocks every reader of report numbers: the facts and each rollup the data queries read. */
export const LOCK_FACTS = 'lock table facts, facts_monthly, facts_campaign_daily, facts_campaign_monthly in access exclusive mode';

export type TestDatabase = Database & {
  /** A URL another process can use (real PostgreSQL, or the embedded socket). */
  url: string;
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

export async function freshDatabase(options: { migrated?: boolean; max?: number } = {}): Promise<TestDatabase> {
  let database: Database;
  let url: string;
  let drop = async () => {};
  if (onPostgres) {
    const fresh = await freshDatabaseUrl();
    url = fresh.url;
    drop = fresh.drop;
    database = await openDatabase({ databaseUrl: url, max: options.max });
  } else {
    database = await openDatabase({ max: options.max });
    const { host, port } = database.sql.options;
    url = `postgres://postgres@${host[0]}:${port[0]}/postgres`;
  }
  if (options.migrated !== false) await migrate(database.sql);
  return {
    ...database,
    url,
    async close() {
      await database.close();
      await drop();
    },
  };
}
