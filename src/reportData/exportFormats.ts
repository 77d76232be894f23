// The two export files of DECISIONS §7: CSV (RFC 4180) and an XLSX workbook of one sheet, both written as a stream.
import { Readable } from 'node:stream';
import XLSXTransformStream from 'xlsx-write-stream';
import { csvField } from '../csv.ts';
import type { Grouping } from './params.ts';
import type { DataRow } from './rows.ts';

/** DECISIONS §6: each grouping's dimension keys, which are also the export's first columns. */
export const DIMENSION_KEYS: Record<Grouping, string[]> = {
  total: [],
  campaign: ['campaignId', 'campaignName', 'adAccountId', 'externalId'],
  segment: ['segmentId', 'segmentName'],
  month: ['month'],
  'ad-account': ['adAccountId', 'adAccountName', 'platform'],
  video: ['creativeId', 'creativeName', 'campaignId'],
  creative: ['creativeId', 'creativeName', 'campaignId'],
};

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

const cells = (row: DataRow, keys: string[], metrics: string[]) => [
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

/** XLSX: one sheet, a header of display names, numbers as numeric cells and names as text. */
export function xlsxStream(sheet: Sheet, end: StreamEnd): ReadableStream<Uint8Array> {
  const keys = DIMENSION_KEYS[sheet.grouping];
  const workbook = new XLSXTransformStream();
  const header = [...keys.map((key) => DIMENSION_TITLES[key] ?? key), ...sheet.metrics.map((m) => sheet.displayNames.get(m) ?? m)];
  let stopped = false;
  const feed = async () => {
    try {
      workbook.write(header);
      for await (const batch of sheet.rows) {
        for (const row of batch) {
          if (stopped) return;
          if (!workbook.write(cells(row, keys, sheet.metrics))) await new Promise((resolve) => workbook.once('drain', resolve));
        }
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
