// What an export file is made of, whatever its format (docs/decisions.md §7): the rows' header, then batches of rows.
import type { Cells } from '../query.ts';

/**
 * rows: batches of rows, each batch either the rows' cells (the dimension values of keys first, then the metric
 * values, in header order) or their bytes in the file's format, rendered by PostgreSQL (rendered.ts).
 */
export type Sheet = {
  /** The rows' dimension keys (PreparedData.keys). */
  keys: readonly string[];
  metrics: string[];
  /** Each metric again over the comparison range, in columns after the main ones (docs/decisions.md §6). */
  compared?: boolean;
  displayNames: Map<string, string>;
  rows: AsyncIterable<Cells[] | Uint8Array>;
  /** Each metric's kind, for its XLSX display format (sheetLayout.ts). */
  kinds?: (string | undefined)[];
};

/** done: the file is complete or failed; cancel: the client went away, so stop the query. */
export type StreamEnd = { done(): void; cancel(): void };

export const NOTHING_TO_END: StreamEnd = { done() {}, cancel() {} };
