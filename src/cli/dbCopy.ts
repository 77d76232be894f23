// `db copy --to URL` (docs/decisions.md §10; docs/operations.md, "Moving between databases"): the installation this
// command runs against, copied whole into an empty database, embedded or PostgreSQL, then both compared. Everything
// is carried as it is stored (organizations, clients and their secrets' hashes, signing keys, the catalogue, facts,
// rates, the stored sums and change stamps), so the same secret gets a token there and every answer is the same.
import { resolve } from 'node:path';
import { transaction, type Sql } from '../store/database.ts';
import { holdsNoDatabase } from '../store/embedded.ts';
import { migrate } from '../store/migrate.ts';
import { openDatabase } from '../store/open.ts';
import { query } from '../store/queries.ts';
import { withoutPassword } from '../config.ts';
import { readFlags, UsageError, type Parsed } from './args.ts';
import { result, table } from './output.ts';

/** Where this command's installation is: DATABASE_URL, else DATA_DIR. */
export type Installation = { databaseUrl?: string; dataDir: string };
type Target = { databaseUrl: string } | { dataDir: string };

const USAGE = 'usage: readout db copy --to postgres://…|embedded:DIR';
/** Rows a statement writes: a batch of JSON stays a few megabytes whatever the table. */
const BATCH = 5000;

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

function parseTarget(to: string): Target {
  if (/^postgres(ql)?:\/\/./.test(to)) return { databaseUrl: to };
  const dir = /^embedded:(.+)$/.exec(to)?.[1];
  if (dir) return { dataDir: dir };
  throw new UsageError(`--to: "${to}" is neither a postgres:// URL nor embedded:DIR; ${USAGE}`);
}

/** A PostgreSQL URL's server and database, as far as its text tells: the same for the same database. */
function server(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname.replace(/^localhost$/, '127.0.0.1')}:${u.port || '5432'}${u.pathname || '/'}`;
  } catch {
    return url;
  }
}

function sameDatabase(source: Installation, target: Target): boolean {
  if ('dataDir' in target) return !source.databaseUrl && resolve(source.dataDir) === resolve(target.dataDir);
  return source.databaseUrl !== undefined && server(source.databaseUrl) === server(target.databaseUrl);
}

/** The target, shown as the database line shows one: never a password. */
const shown = (target: Target) =>
  'dataDir' in target ? `embedded:${target.dataDir}` : withoutPassword(target.databaseUrl);

type Table = { name: string; columns: string[]; parents: string[] };

/** Tables in an order that writes each after the tables its foreign keys name. */
function parentsFirst(tables: Table[]): Table[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const ordered: Table[] = [];
  const placed = new Set<string>();
  const visit = (t: Table, path: string[]) => {
    if (placed.has(t.name)) return;
    if (path.includes(t.name)) throw new Error(`foreign keys form a cycle: ${[...path, t.name].join(' -> ')}`);
    for (const parent of t.parents) if (byName.has(parent)) visit(byName.get(parent)!, [...path, t.name]);
    placed.add(t.name);
    ordered.push(t);
  };
  for (const t of tables) visit(t, []);
  return ordered;
}

/**
 * Each table's rows and a digest of their contents: the sum of an md5 of each row's text over the columns in name
 * order, so row order and column order do not matter. Times are written in UTC on both sides.
 */
export async function contents(sql: Sql, only?: Table[]): Promise<Map<string, { rows: number; digest: string }>> {
  const tables = only ?? (await query(sql, 'list-copied-tables'));
  return transaction(
    sql,
    async (tx) => {
      const out = new Map<string, { rows: number; digest: string }>();
      for (const t of tables) {
        const row = `row(${t.columns.map((c) => `t.${ident(c)}`).join(', ')})::text`;
        const [r] = await tx.unsafe<{ rows: number; digest: string }[]>(
          `select count(*)::int as rows,
             coalesce(sum(('x' || left(md5(${row}), 15))::bit(60)::bigint::numeric), 0)::text as digest
           from ${ident(t.name)} t`,
        );
        out.set(t.name, r);
      }
      return out;
    },
    "begin isolation level repeatable read read only; set local timezone = 'UTC'; set local extra_float_digits = 1",
  );
}

export async function dbCopy(
  sql: Sql,
  args: Parsed,
  source: Installation,
  progress: (line: string) => void,
): Promise<ReturnType<typeof result>> {
  const target = parseTarget(readFlags(args.flags, ['to']).to);
  if (sameDatabase(source, target))
    throw new UsageError(`--to: ${shown(target)} is the database this command runs against; ${USAGE}`);
  if ('dataDir' in target && !holdsNoDatabase(target.dataDir))
    throw new UsageError(`--to: ${target.dataDir} already holds a database; db copy writes only into an empty one`);
  const opened = await openDatabase(
    'dataDir' in target
      ? { dataDir: target.dataDir, holder: 'command', max: 2 }
      : { databaseUrl: target.databaseUrl, poolMode: 'session', max: 2 },
  ).catch((error: Error) => {
    throw new UsageError(`--to: cannot open ${shown(target)}: ${error.message.split('\n')[0]}`);
  });
  try {
    const [found] = await query(opened.sql, 'find-copy-target-contents');
    if (found.tables > 0 && !found.readout)
      throw new UsageError(
        `--to: ${shown(target)} holds ${found.tables} tables that are not readout's; use an empty database`,
      );
    if (found.readout && (await query(opened.sql, 'find-installation-rows'))[0].installed)
      throw new UsageError(
        `--to: ${shown(target)} already holds an installation (organizations, clients, facts or rates); ` +
          'db copy writes only into an empty database',
      );
    await migrate(opened.sql);
    const tables = parentsFirst(await query(sql, 'list-copied-tables'));
    const there = new Map((await query(opened.sql, 'list-copied-tables')).map((t) => [t.name, t.columns.join()]));
    const differ = tables.filter((t) => there.get(t.name) !== t.columns.join()).map((t) => t.name);
    if (differ.length || there.size !== tables.length)
      throw new Error(`the two databases' schemas differ (${differ.join(', ') || 'their tables'}): migrate both first`);
    const copied = await copyTables(sql, opened.sql, tables, progress);
    progress('readout: comparing both sides');
    await opened.sql.unsafe('analyze');
    const [mine, theirs] = await Promise.all([contents(sql, tables), contents(opened.sql, tables)]);
    const mismatched = tables.filter(
      (t) =>
        mine.get(t.name)!.rows !== theirs.get(t.name)!.rows || mine.get(t.name)!.digest !== theirs.get(t.name)!.digest,
    );
    if (mismatched.length)
      throw new Error(
        `the copy differs from its source in ${mismatched.map((t) => t.name).join(', ')} ` +
          '(was something writing to the source?); drop the target and copy again',
      );
    const rows = Object.fromEntries(tables.map((t) => [t.name, copied.get(t.name)!]));
    const total = tables.reduce((sum, t) => sum + copied.get(t.name)!, 0);
    const text = [
      table(
        tables.map((t) => ({ table: t.name, rows: copied.get(t.name) })),
        ['table', 'rows'],
      ),
      `${total} rows in ${tables.length} tables copied to ${shown(target)}; ` +
        "verified: every table's rows and contents are the same on both sides",
    ].join('\n');
    return result({ tables: rows, verified: true }, text);
  } finally {
    await opened.close();
  }
}

/**
 * Every table from one snapshot of the source into one transaction on the target, with the target's own triggers
 * off: the stored sums and stamps are copied as they are, not computed again. A failure leaves the target as empty
 * as it was found.
 */
async function copyTables(source: Sql, target: Sql, tables: Table[], progress: (line: string) => void) {
  const copied = new Map<string, number>();
  await transaction(
    source,
    (from) =>
      transaction(target, async (to) => {
        for (const t of tables) await to.unsafe(`alter table ${ident(t.name)} disable trigger user`);
        // What the target's migrations wrote (plans, the catalogue, a key of a server that started on it) goes.
        for (const t of [...tables].reverse()) await to.unsafe(`delete from ${ident(t.name)}`);
        for (const t of tables) {
          const columns = t.columns.map(ident).join(', ');
          let rows = 0;
          // Iterated, not a callback: postgres.js does not wait for the callback of the last, partial batch.
          const batches = from
            .unsafe<{ r: string }[]>(
              `select row_to_json(t)::text as r from (select ${columns} from ${ident(t.name)}) t`,
            )
            .cursor(BATCH);
          for await (const batch of batches) {
            await to.unsafe(
              `insert into ${ident(t.name)} (${columns})
               select ${columns} from json_populate_recordset(null::${ident(t.name)}, $1::text::json)`,
              [`[${batch.map((row) => row.r).join(',')}]`],
            );
            rows += batch.length;
          }
          copied.set(t.name, rows);
          if (rows) progress(`readout: copied ${t.name}: ${rows} rows`);
        }
        for (const t of tables) await to.unsafe(`alter table ${ident(t.name)} enable trigger user`);
      }),
    "begin isolation level repeatable read read only; set local timezone = 'UTC'",
  );
  return copied;
}
