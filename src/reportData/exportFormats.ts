// The two export files of DECISIONS §7: CSV (RFC 4180) and an XLSX workbook of one sheet, both written as a stream.
import { Readable, type Transform } from 'node:stream';
import XLSXTransformStream from 'xlsx-write-stream';
import { sheetRow } from './sheetRow.ts';
import { csvField } from '../csv.ts';
import { DIMENSION_KEYS } from './dimensions.ts';
import type { Grouping } from './params.ts';
import type { DataRow } from './rows.ts';

const DIMENSION_TITLES: Record<string, string> = {
  campaignId: 'Campaign ID',
  campaignName: 'Campaign',
  adAccountId: 'Ad account ID',
  externalId: 'External ID',
  segmentId: 'Segment ID',
  segmentName: 'Segment',
  month: 'Month',
  adAccountName: 'Ad account',
  platform: 'Platform',
  creativeId: 'Creative ID',
  creativeName: 'Creative',
};

export type Sheet = { grouping: Grouping; metrics: string[]; displayNames: Map<string, string>; rows: AsyncIterable<DataRow[]> };

/** done: the file is complete or failed; cancel: the client went away, so stop the query. */
export type StreamEnd = { done(): void; cancel(): void };

/** OWASP CSV injection: a text cell that a spreadsheet would run as a formula is prefixed with a quote. */
const neutralised = (text: string) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);

const cells = (row: DataRow, keys: readonly string[], metrics: string[]) => [
  ...keys.map((key) => {
    const value = row.dimensions[key];
    return value === null || value === undefined ? '' : neutralised(String(value));
  }),
  ...metrics.map((metric) => row.metrics[metric] ?? null),
];

const encoder = new TextEncoder();

/** text/csv: a header of dimension keys then metric names; numbers plainly, null as an empty cell. */
export function csvStream(sheet: Sheet, end: StreamEnd): ReadableStream<Uint8Array> {
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
        let text = '';
        for (const row of next.value) {
          text += `${cells(row, keys, sheet.metrics).map((v) => (typeof v === 'number' ? String(v) : v === null ? '' : csvField(v))).join(',')}\r\n`;
        }
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

/** The workbook stream is in object mode: its buffered output is counted in chunks (zip output, ~16 kB each). */
const OUTPUT_HIGH_WATER = 64;

/** XLSX: one sheet, a header of display names, numbers as numeric cells and names as text. */
export function xlsxStream(sheet: Sheet, end: StreamEnd): ReadableStream<Uint8Array> {
  const keys = DIMENSION_KEYS[sheet.grouping];
  const workbook = new XLSXTransformStream();
  // xlsx-write-stream renders one row per stream chunk, sanitising each string a character at a time into fresh
  // Buffers: at a million rows that is a minute and hundreds of MB. Its sheet stream here takes a batch per chunk,
  // rendered by sheetRow (the same cells, escaped with one regular expression).
  const rows = (workbook as unknown as { rowTransform: Transform & { rowCount: number } }).rowTransform;
  rows._transform = (batch: unknown[][], _encoding, callback) => {
    let xml = '';
    for (const values of batch) xml += sheetRow(rows.rowCount++, values);
    callback(null, xml);
  };
  const header = [...keys.map((key) => DIMENSION_TITLES[key] ?? key), ...sheet.metrics.map((m) => sheet.displayNames.get(m) ?? m)];
  let stopped = false;
  // The archive pushes its output whether or not anyone reads it; the feed waits while the reader is behind.
  let pulled: () => void = () => {};
  const readerCaughtUp = async () => {
    while (!stopped && workbook.readableLength > OUTPUT_HIGH_WATER) await new Promise<void>((resolve) => (pulled = resolve));
  };
  const write = (batch: unknown[][]) => (rows.write(batch) ? undefined : new Promise((resolve) => rows.once('drain', resolve)));
  const feed = async () => {
    try {
      await write([header]);
      for await (const batch of sheet.rows) {
        if (stopped) return;
        await write(batch.map((row) => cells(row, keys, sheet.metrics)));
        await readerCaughtUp();
      }
      workbook.end();
    } catch (error) {
      workbook.destroy(error as Error);
    } finally {
      end.done();
    }
  };
  void feed();
  const web = Readable.toWeb(workbook) as unknown as ReadableStream<Uint8Array>;
  const reader = web.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await reader.read();
        pulled();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (error) {
        controller.error(error);
      }
    },
    cancel() {
      stopped = true;
      end.cancel();
      workbook.destroy();
    },
  });
}
