// Loads the SQL that lives in sql/: migrations in order, and one named query a file.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const sqlDir = fileURLToPath(new URL('../../sql/', import.meta.url));

export type SqlFile = { name: string; text: string };

function readFolder(folder: string): SqlFile[] {
  const dir = sqlDir + folder;
  return readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => ({ name: file.slice(0, -4), text: readFileSync(`${dir}/${file}`, 'utf8') }));
}

export const migrationFiles = (): SqlFile[] => readFolder('migrations');

/** Every query of sql/queries, by file name without `.sql`, read once. */
export const queryTexts = (): Record<string, string> =>
  Object.fromEntries(readFolder('queries').map(({ name, text }) => [name, text]));
