// text/csv exports (RFC 4180, DECISIONS §7): a header of dimension keys then metric names, written as a stream.
import { DIMENSION_KEYS } from '../dimensions.ts';
import type { Cells } from '../rows.ts';
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
  const keys = DIMENSION_KEYS[sheet.grouping];
  const iterator = sheet.rows[Symbol.asyncIterator]();
  let header = true;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (header) {
          header = false;
          controller.enqueue(encoder.encode(`${[...keys, ...sheet.metrics].map(csvField).join(',')}\r\n`));
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

