// What the single executable carries inside it (scripts/build.ts fills this in before the server or the command line
// is loaded); empty when readout runs from its source tree, which reads the same files from disk.
import type { PGliteOptions } from '@electric-sql/pglite';

export type BundledFile = { name: string; text: string };

/** xlsx-write-stream's template modules, whose `default` src/report/formats/sheetLayout.ts replaces. */
export type SheetTemplates = { styles: { default: string }; opening: { default: string } };

export const bundled: {
  /** sql/migrations and sql/queries, each sorted by name, without `.sql`, and sql/lattice/lattice.sql. */
  sql?: { migrations: BundledFile[]; queries: BundledFile[]; lattice: string };
  /** PGlite's WebAssembly and its file system image, which it would otherwise fetch next to its own module. */
  pglite?: () => Promise<Pick<PGliteOptions, 'pgliteWasmModule' | 'initdbWasmModule' | 'fsBundle'>>;
  /** xlsx-write-stream's template modules, as the bundle holds them. */
  sheetTemplates?: SheetTemplates;
  /** Redoc's standalone script, which the API reference page inlines. */
  redoc?: string;
  /** The command that runs an operator command, for the hints printed to a person. */
  command?: string;
} = {};
