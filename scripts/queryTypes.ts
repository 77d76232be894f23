// npm run sql:types: writes src/store/queryTypes.ts, each query's parameter and row types as PostgreSQL describes the
// statement against a freshly migrated embedded database, each parameter by the name the file gives it. test/queryTypes.test.ts fails while the file is not current,
// and tsc then fails at a caller whose query changed under it.
//
// Nullability: a column read straight from a table is non-null when the table says so (`not null`) and the query has
// no outer join; anything else (expressions, aggregates, outer joins) is nullable unless the file's header declares it
// otherwise with a line `-- not null: name, name`. JSON columns are `unknown`: PostgreSQL does not describe their
// shape, so the caller narrows them.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Sql } from '../src/store/database.ts';
import { migrate } from '../src/store/migrate.ts';
import { openDatabase } from '../src/store/open.ts';
import { expandBaseLists } from '../src/store/baseLists.ts';
import { positional } from '../src/store/placeholders.ts';

const DIR = 'sql/queries';

/** What postgres.js gives for a column of each type (its default parsers), and what it takes for a parameter. */
function tsType(oid: number, elements: Map<number, number>, side: 'row' | 'param'): string {
  const element = elements.get(oid);
  if (element !== undefined) return `${wrap(tsType(element, elements, side))}[]`;
  if (oid === 16) return 'boolean';
  if ([21, 23, 26, 700, 701].includes(oid)) return 'number';
  if (oid === 20 || oid === 1700) return side === 'row' ? 'string' : 'string | number';
  if ([1082, 1114, 1184].includes(oid)) return side === 'row' ? 'Date' : 'Date | string';
  if (oid === 114 || oid === 3802) return 'unknown';
  if (oid === 17) return 'Uint8Array';
  return 'string';
}
const wrap = (type: string) => (type.includes(' ') ? `(${type})` : type);

/** The names a file's header declares not null (`-- not null: a, b`). */
function declaredNotNull(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, list] of text.matchAll(/^-- not null: (.+)$/gm))
    for (const name of list.split(',')) names.add(name.trim());
  return names;
}

export async function queryTypesSource(): Promise<string> {
  const db = await openDatabase({});
  try {
    await migrate(db.sql);
    return await describeAll(db.sql);
  } finally {
    await db.close();
  }
}

async function describeAll(sql: Sql): Promise<string> {
  const files = readdirSync(DIR)
    .filter((file) => file.endsWith('.sql'))
    .sort();
  const staging = files.filter((file) => /^create-.*-staging\.sql$/.test(file));
  const arrays = await sql<
    { oid: number; elem: number }[]
  >`select oid::int, typelem::int as elem from pg_type where typcategory = 'A'`;
  const elements = new Map(arrays.map((t) => [t.oid, t.elem]));
  const notNullColumns = new Set(
    (
      await sql<
        { key: string }[]
      >`select attrelid::int || ':' || attnum as key from pg_attribute where attnotnull and attnum > 0`
    ).map((r) => r.key),
  );
  const entries: string[] = [];
  const ROLLBACK = new Error('rollback');
  await sql
    .begin(async (tx) => {
      for (const file of [...staging, ...files.filter((f) => !staging.includes(f))]) {
        const text = expandBaseLists(readFileSync(join(DIR, file), 'utf8'));
        const name = file.slice(0, -4);
        const { text: sent, names } = positional(text);
        const described = await tx.unsafe(sent).describe();
        if (staging.includes(file)) await tx.unsafe(text);
        const declared = declaredNotNull(text);
        const outer = /\b(left|right|full)\s+(outer\s+)?join\b/i.test(text);
        const params = described.types.map(
          (oid, i) => `${JSON.stringify(names[i])}: ${wrap(tsType(oid, elements, 'param'))} | null`,
        );
        const columns = (described.columns ?? []).map((c) => {
          const fromTable = c.table !== 0 && c.number > 0 && notNullColumns.has(`${c.table}:${c.number}`) && !outer;
          const type = tsType(c.type, elements, 'row');
          const nullable = !fromTable && !declared.has(c.name) && type !== 'unknown';
          return `${JSON.stringify(c.name)}: ${nullable ? `${wrap(type)} | null` : type}`;
        });
        entries.push(
          `  '${name}': {\n    params: { ${params.join('; ')} };\n    row: { ${columns.join('; ')} };\n  };`,
        );
      }
      throw ROLLBACK;
    })
    .catch((error) => {
      if (error !== ROLLBACK) throw error;
    });
  return [
    '// Written by `npm run sql:types` from the files of sql/queries, as PostgreSQL describes each statement: its',
    "// parameters and its row. Do not edit; change the query, or its header's `-- not null:` line, and run it again.",
    'export type QueryTypes = {',
    ...entries,
    '};',
    '',
  ].join('\n');
}

// Run as a command (not imported by the test): write the file.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync('src/store/queryTypes.ts', await queryTypesSource());
}
