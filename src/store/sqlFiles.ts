// Loads the SQL that lives in sql/: migrations in order, and one named query a file (from inside the executable
// when readout runs as one).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundled } from '../bundled.ts';

export type SqlFile = { name: string; text: string };

function readFolder(folder: 'migrations' | 'queries'): SqlFile[] {
  if (bundled.sql) return bundled.sql[folder];
  const dir = fileURLToPath(new URL(`../../sql/${folder}/`, import.meta.url));
  return readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => ({ name: file.slice(0, -4), text: readFileSync(`${dir}/${file}`, 'utf8') }));
}

export const migrationFiles = (): SqlFile[] => readFolder('migrations');

/** Every query of sql/queries, by file name without `.sql`, read once. */
export const queryTexts = (): Record<string, string> =>
  Object.fromEntries(readFolder('queries').map(({ name, text }) => [name, text]));
