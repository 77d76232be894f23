// What an export file is made of, whatever its format (DECISIONS §7): the grouping's header, then batches of rows.
import type { Grouping } from '../params.ts';
import type { Cells } from '../query.ts';

/**
 * rows: batches of rows, each batch either the rows' cells (the grouping's dimension values first, then the metric
 * values, in header order) or their bytes in the file's format, rendered by PostgreSQL (rendered.ts).
 */
export type Sheet = {
  grouping: Grouping;
  metrics: string[];
  displayNames: Map<string, string>;
  rows: AsyncIterable<Cells[] | Uint8Array>;
  /** Each metric's kind, for its XLSX display format (sheetLayout.ts). */
  kinds?: (string | undefined)[];
};

/** done: the file is complete or failed; cancel: the client went away, so stop the query. */
export type StreamEnd = { done(): void; cancel(): void };

export const NOTHING_TO_END: StreamEnd = { done() {}, cancel() {} };

