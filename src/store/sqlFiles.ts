// Loads the SQL that lives in sql/: migrations in order, and one named query a file (from inside the executable
// when readout runs as one).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundled } from '../bundled.ts';
import { expandBaseLists } from './baseLists.ts';

export type SqlFile = { name: string; text: string };

function readFolder(folder: 'migrations' | 'queries'): SqlFile[] {
  if (bundled.sql) return bundled.sql[folder];
  const dir = fileURLToPath(new URL(`../../sql/${folder}/`, import.meta.url));
  return readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => ({ name: file.slice(0, -4), text: readFileSync(`${dir}/${file}`, 'utf8') }));
}

/**
 * The stored sums of the base metrics as src/dataModel.ts declares them (scripts/lattice.ts writes it):
 * applied after the numbered migrations, again whenever its text changes, so its name carries its digest.
 */
function latticeFile(): SqlFile {
  const text =
    bundled.sql?.lattice ??
    readFileSync(fileURLToPath(new URL('../../sql/lattice/lattice.sql', import.meta.url)), 'utf8');
  return { name: `lattice-${createHash('sha256').update(text).digest('hex').slice(0, 16)}`, text };
}

export const migrationFiles = (): SqlFile[] => [...readFolder('migrations'), latticeFile()];

/** Every query of sql/queries, by file name without `.sql`, read once; each list of the base metrics written out. */
export const queryTexts = (): Record<string, string> =>
  Object.fromEntries(readFolder('queries').map(({ name, text }) => [name, expandBaseLists(text)]));
