// XLSX exports (docs/decisions.md §7): a workbook of one sheet, written as a stream with backpressure to the database.
import type { Transform } from 'node:stream';
import XLSXTransformStream from 'xlsx-write-stream';
import { cellStyles, headerStyles, useSheetLayout } from './sheetLayout.ts';
import { NOTHING_TO_END, type Sheet, type StreamEnd } from './sheet.ts';
import { sheetRow } from './sheetRow.ts';
import type { Context } from '../../http/context.ts';
import type { Lent } from '../../store/exclusive.ts';
import { batches, joined, renderedRows, type DayRange } from '../query.ts';
import type { PreparedData } from '../prepare.ts';

const DIMENSION_TITLES: Record<string, string> = {
  campaignId: 'Campaign ID',
  campaignName: 'Campaign',
  adAccountId: 'Ad account ID',
  externalId: 'External ID',
  segmentId: 'Segment ID',
  segmentName: 'Segment',
  month: 'Month',
  day: 'Day',
  week: 'Week',
  adAccountName: 'Ad account',
  platform: 'Platform',
  creativeId: 'Creative ID',
  creativeName: 'Creative',
};

/** Rows rendered per write into the sheet stream: about 50 kB of XML a chunk. */
const SHEET_CHUNK_ROWS = 200;

type Archive = NodeJS.ReadableStream & { finalize(): Promise<void>; destroy(error?: Error): void };

/**
 * XLSX: one sheet, a header of display names, numbers as numeric cells and names as text.
 *
 * xlsx-write-stream's own output pushes every zip chunk whether or not anyone reads it, so a fast database and a
 * slow client would buffer the whole file. Here the response reads the zip archive itself, so backpressure runs
 * from the socket through the archive and the sheet stream to the database cursor: memory stays flat.
 */
export function xlsxStream(sheet: Sheet, end: StreamEnd = NOTHING_TO_END): ReadableStream<Uint8Array> {
  const keys = sheet.keys;
  const titles = sheet.metrics.map((m) => sheet.displayNames.get(m) ?? m);
  const header = [
    ...keys.map((key) => DIMENSION_TITLES[key] ?? key),
    ...titles,
    ...(sheet.compared ? titles.map((title) => `${title} (compare)`) : []),
  ];
  const kinds = sheet.kinds ?? [];
  const styles = cellStyles(keys.length, sheet.compared ? [...kinds, ...kinds] : kinds);
  useSheetLayout(header);
  const workbook = new XLSXTransformStream() as unknown as {
    zip: Archive;
    rowTransform: Transform & { rowCount: number };
  };
  const zip = workbook.zip;
  zip.removeAllListeners('data');
  zip.pause();
  // The library prints archive errors to the console; here they reach the response through the reader instead.
  zip.removeAllListeners('error');
  zip.on('error', () => {});
  // The library renders one row per stream chunk, sanitising each string a character at a time into fresh Buffers:
  // at a million rows that is a minute and hundreds of MB. Its sheet stream here takes a run of rows per chunk,
  // rendered by sheetRow (the same cells, escaped with one regular expression).
  const rows = workbook.rowTransform;
  rows._transform = (batch: unknown[][] | Uint8Array, _encoding, callback) => {
    if (batch instanceof Uint8Array) return callback(null, batch);
    let xml = '';
    for (const values of batch) {
      const index = rows.rowCount++;
      xml += sheetRow(index, values, index === 0 ? headerStyles(values.length) : styles);
    }
    callback(null, xml);
  };
  // Its object-mode buffers would hold 16 chunks a side: rows waiting that long outlive V8's young generation,
  // and a long export then grows the heap by tens of MB. One chunk a side keeps the pipeline moving.
  const state = rows as unknown as {
    _writableState: { highWaterMark: number };
    _readableState: { highWaterMark: number };
  };
  state._writableState.highWaterMark = 1;
  state._readableState.highWaterMark = 1;
  let stopped = false;
  // A write past the buffer waits for it to drain, or for the stream to close when the client has gone.
  const write = (batch: unknown[][] | Uint8Array) => {
    if (rows.write(batch)) return undefined;
    return new Promise<void>((resolve) => {
      const done = () => (rows.off('drain', done), rows.off('close', done), resolve());
      rows.on('drain', done).on('close', done);
    });
  };
  const feed = async () => {
    try {
      await write([header]);
      for await (const batch of sheet.rows) {
        if (batch instanceof Uint8Array) await write(batch);
        else
          for (let i = 0; i < batch.length && !stopped; i += SHEET_CHUNK_ROWS) {
            // Text as it is: an inline string is never evaluated, so CSV's formula guard has no place here (migration
            // 016).
            await write(batch.slice(i, i + SHEET_CHUNK_ROWS));
          }
        if (stopped) return;
      }
      rows.end();
      await zip.finalize();
    } catch (error) {
      zip.destroy(error as Error);
    } finally {
      end.done();
    }
  };
  void feed();
  const output = (zip as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await output.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (error) {
        controller.error(error);
      }
    },
    cancel() {
      stopped = true;
      end.cancel();
      zip.destroy();
      rows.destroy();
    },
  });
}

/**
 * An XLSX export's worksheet rows, rendered by PostgreSQL (rendered.ts), a batch at a time; null when there is no ad
 * account to read (the sheet is its header). The rows are read raw, as the UTF-8 the
 * database sent: decoding rendered rows into strings only to encode them again was a sixth of the server's time.
 */
export function streamSheetRows(
  lent: Lent,
  ctx: Context,
  data: PreparedData,
  range: DayRange,
): AsyncGenerator<Uint8Array> | null {
  if (data.accountIds.length === 0) return null;
  const pending = renderedRows(lent.sql, data, range);
  return (async function* () {
    for await (const batch of batches<Uint8Array[]>(ctx, lent, pending)) yield joined(batch);
  })();
}
