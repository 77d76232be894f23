// text/csv exports (RFC 4180, docs/decisions.md §7): a header of dimension keys then metric names, written as a stream;
// the records from a binary COPY (copyCsv.ts).
import type { Context } from '../../http/context.ts';
import type { Lent } from '../../store/exclusive.ts';
import { emptySummary, toCells, type Cells, type DayRange } from '../query.ts';
import type { PreparedData } from '../prepare.ts';
import { CopyCsv } from './copyCsv.ts';
import { copiedRows } from './copyOut.ts';
import { NOTHING_TO_END, type Sheet, type StreamEnd } from './sheet.ts';

/** RFC 4180 §2: quote a field holding a comma, quote, CR or LF; double its quotes. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** OWASP CSV injection: a text cell that a spreadsheet would run as a formula is prefixed with a quote. */
const neutralised = (text: string) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);

/** One CSV record: text quoted where RFC 4180 needs it, numbers plainly, null as an empty cell. */
export function csvRecord(cells: Cells, dimensions: number): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) {
    const value = cells[i];
    if (i > 0) line += ',';
    if (value === null || value === undefined) continue;
    line += i < dimensions ? csvField(neutralised(String(value))) : String(value);
  }
  return `${line}\r\n`;
}

const encoder = new TextEncoder();

/** text/csv: a header of dimension keys then metric names; numbers plainly, null as an empty cell. */
export function csvStream(sheet: Sheet, end: StreamEnd = NOTHING_TO_END): ReadableStream<Uint8Array> {
  const keys = sheet.keys;
  const iterator = sheet.rows[Symbol.asyncIterator]();
  let header = true;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (header) {
          header = false;
          const compared = sheet.compared ? sheet.metrics.map((name) => `${name}_compare`) : [];
          controller.enqueue(encoder.encode(`${[...keys, ...sheet.metrics, ...compared].map(csvField).join(',')}\r\n`));
          return;
        }
        const next = await iterator.next();
        if (next.done) {
          end.done();
          controller.close();
          return;
        }
        if (next.value instanceof Uint8Array) {
          controller.enqueue(next.value);
          return;
        }
        let text = '';
        for (const cells of next.value) text += csvRecord(cells, keys.length);
        controller.enqueue(encoder.encode(text));
      } catch (error) {
        end.done();
        controller.error(error);
      }
    },
    cancel() {
      end.cancel();
      void iterator.return?.(undefined)?.catch(() => {});
    },
  });
}

/**
 * The rows of an export with no ad account to read, as cells: none, and with a summary its row of zeros
 * (docs/decisions.md §6).
 */
export async function* cellsOfNothing(data: PreparedData): AsyncGenerator<Cells[]> {
  if (data.summary) yield [toCells(emptySummary(data), data)];
}

/**
 * A CSV export's records: the answer's query run as a binary COPY and written by CopyCsv (copyOut.ts); null where there
 * is no ad account to read (cellsOfNothing). Against the query rendering its rows (rendered.ts), PostgreSQL formats
 * nothing and the export runs twice as fast (BENCHMARKS.md, "CSV from a binary COPY").
 */
export function streamCsv(
  lent: Lent,
  ctx: Context,
  data: PreparedData,
  range: DayRange,
): AsyncGenerator<Uint8Array> | null {
  return copiedRows(lent, ctx, data, range, new CopyCsv(data));
}
