// npm run sql:check [-- --dir sql/queries]: every query file prepared (described) against a freshly migrated schema,
// on the embedded database, and on PostgreSQL too when DATABASE_URL (or TEST_DATABASE_URL, as `npm test` has it) is set,
// in a temporary database dropped after.
// One line per broken query, with its file and PostgreSQL's message; exit 2 if any.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import type { Database } from '../src/store/database.ts';
import { openDatabase } from '../src/store/open.ts';
import { migrate } from '../src/store/migrate.ts';
import { positional } from '../src/store/placeholders.ts';
import { expandBaseLists } from '../src/store/baseLists.ts';

const { values } = parseArgs({ options: { dir: { type: 'string', default: 'sql/queries' } } });
const dir = values.dir!;
const files = readdirSync(dir)
  .filter((file) => file.endsWith('.sql'))
  .sort();

/** The files PostgreSQL cannot prepare, as `file: message` lines. */
async function broken(db: Database, where: string): Promise<string[]> {
  await migrate(db.sql);
  const lines: string[] = [];
  // One connection, in one transaction: the import's staging table is a temporary one its other queries read, so
  // the file that creates it runs first (STAGING), as the import does.
  await db.sql
    .begin(async (tx) => {
      for (const file of [...STAGING, ...files.filter((f) => !STAGING.includes(f))]) {
        const text = positional(expandBaseLists(readFileSync(join(dir, file), 'utf8'))).text;
        try {
          await tx.savepoint(async (sp) => {
            if (STAGING.includes(file)) await sp.unsafe(text);
            else await sp.unsafe(text).describe();
          });
        } catch (error) {
          lines.push(`${join(dir, file)}: ${where}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      throw ROLLBACK;
    })
    .catch((error) => {
      if (error !== ROLLBACK) throw error;
    });
  return lines;
}

const STAGING = files.filter((file) => /^create-.*-staging\.sql$/.test(file));
const ROLLBACK = new Error('rollback');

const problems: string[] = [];
const embedded = await openDatabase({});
try {
  problems.push(...(await broken(embedded, 'embedded')));
} finally {
  await embedded.close();
}
const server = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (server) {
  const admin = postgres(server, { max: 1, onnotice: () => {} });
  const name = `readout_sql_check_${process.pid}_${Date.now().toString(36)}`;
  await admin.unsafe(`create database ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString(), max: 1 });
  try {
    problems.push(...(await broken(db, 'PostgreSQL')));
  } finally {
    await db.close();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}
for (const line of problems) process.stderr.write(`sql:check: ${line}\n`);
process.stdout.write(
  `sql:check: ${files.length - new Set(problems.map((line) => line.split(':')[0])).size} of ${files.length} queries prepare\n`,
);
process.exit(problems.length ? 2 : 0);
