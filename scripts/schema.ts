// npm run sql:schema: writes sql/schema.sql, the schema as the migrations leave it, read back from PostgreSQL's
// catalogue on a freshly migrated embedded database: a reader sees today's tables and functions without replaying
// every migration. test/schema.test.ts fails when the file is not current. The migrations stay the source of truth.
import { writeFileSync } from 'node:fs';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import type { Sql } from '../src/store/database.ts';
import { openDatabase } from '../src/store/open.ts';
import { migrate } from '../src/store/migrate.ts';

export const SCHEMA_FILE = 'sql/schema.sql';

const HEADER = `-- The schema as sql/migrations leaves it, written by \`npm run sql:schema\` (checked by test/schema.test.ts).
-- For reading only: databases are made and changed by the migrations, never from this file.
`;

type Column = {
  table: string;
  name: string;
  type: string;
  notNull: boolean;
  fallback: string | null;
  generated: string;
  identity: string;
  /** Its statistics target where a migration set one (SET STATISTICS), else null. */
  stats: number | null;
};

/** The public schema's tables, indexes, functions and triggers, each in a stable order, as SQL text. */
export async function schemaText(sql: Sql): Promise<string> {
  const tables = await sql<{ name: string }[]>`
    select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind in ('r', 'p') order by c.relname`;
  const columns = await sql<Column[]>`
    select c.relname as table, a.attname as name, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as "notNull",
           pg_get_expr(d.adbin, d.adrelid) as fallback, a.attgenerated as generated, a.attidentity as identity,
           case when a.attstattarget >= 0 then a.attstattarget::int end as stats
    from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where n.nspname = 'public' and c.relkind in ('r', 'p') and a.attnum > 0 and not a.attisdropped
    order by c.relname, a.attnum`;
  const constraints = await sql<{ table: string; name: string; definition: string }[]>`
    select c.relname as table, k.conname as name, pg_get_constraintdef(k.oid, true) as definition
    from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and k.contype <> 'n'
    order by c.relname, position(k.contype in 'pufcx'), k.conname`;
  const indexes = await sql<{ definition: string }[]>`
    select pg_get_indexdef(i.indexrelid) as definition
    from pg_index i join pg_class x on x.oid = i.indexrelid join pg_class c on c.oid = i.indrelid
    join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid)
    order by c.relname, x.relname`;
  const functions = await sql<{ definition: string }[]>`
    select pg_get_functiondef(p.oid) as definition from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'public' order by p.proname, pg_get_function_identity_arguments(p.oid)`;
  const triggers = await sql<{ definition: string }[]>`
    select pg_get_triggerdef(t.oid, true) as definition from pg_trigger t join pg_class c on c.oid = t.tgrelid
    join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and not t.tgisinternal order by c.relname, t.tgname`;

  const parts = [HEADER];
  for (const { name } of tables) {
    const lines = columns
      .filter((c) => c.table === name)
      .map((c) => {
        let line = `  ${c.name} ${c.type}`;
        if (c.identity) line += ` generated ${c.identity === 'a' ? 'always' : 'by default'} as identity`;
        else if (c.generated === 's') line += ` generated always as (${c.fallback}) stored`;
        else if (c.fallback !== null) line += ` default ${c.fallback}`;
        return c.notNull ? `${line} not null` : line;
      });
    for (const k of constraints.filter((k) => k.table === name)) lines.push(`  constraint ${k.name} ${k.definition}`);
    const stats = columns
      .filter((c) => c.table === name && c.stats !== null)
      .map((c) => `alter table ${name} alter column ${c.name} set statistics ${c.stats};\n`);
    parts.push(`create table ${name} (\n${lines.join(',\n')}\n);\n${stats.join('')}`);
  }
  parts.push(indexes.map((i) => `${i.definition};\n`).join(''));
  for (const f of functions) parts.push(`${f.definition.trimEnd()};\n`);
  parts.push(triggers.map((t) => `${t.definition};\n`).join(''));
  return parts.join('\n');
}

/** The schema of a freshly migrated embedded database (the same PostgreSQL every machine gets with npm ci). */
export async function currentSchema(): Promise<string> {
  const database = await openDatabase({});
  try {
    await migrate(database.sql);
    return await schemaText(database.sql);
  } finally {
    await database.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(SCHEMA_FILE, await currentSchema());
  console.log(`wrote ${SCHEMA_FILE}`);
}
