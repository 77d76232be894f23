// Applies sql/migrations in order, each exactly once, even when several processes start together.
import { transaction, type Sql } from './database.ts';
import { migrationFiles, type SqlFile } from './sqlFiles.ts';

const MIGRATION_LOCK = 727_001; // pg_advisory_xact_lock key shared by every readout process
const LATTICE = 'lattice-';

/** Returns the names of the migrations this call applied. */
export async function migrate(sql: Sql, files: SqlFile[] = migrationFiles()): Promise<string[]> {
  return transaction(sql, async (tx) => {
    // The lock is taken before the table is looked at, so a second process waits and then finds it all done.
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`create table if not exists schema_migrations (
      name text primary key, applied_at timestamptz not null default now())`;
    const rows = await tx<{ name: string }[]>`select name from schema_migrations order by applied_at, name`;
    const applied = new Set(rows.map((row) => row.name));
    // The lattice (sql/lattice/lattice.sql) is applied again whenever it is not the one applied last, even if it was
    // applied before: a declaration taken back is a change too.
    const lastLattice = rows.findLast((row) => row.name.startsWith(LATTICE))?.name;
    const pending = files.filter((file) =>
      file.name.startsWith(LATTICE) ? file.name !== lastLattice : !applied.has(file.name),
    );
    for (const file of pending) {
      await tx.unsafe(file.text).simple();
      await tx`insert into schema_migrations (name) values (${file.name})
        on conflict (name) do update set applied_at = now()`;
    }
    return pending.map((file) => file.name);
  });
}
