// Runs the grouping's query and turns summed facts into rows of spec §2.5, sorted as asked.
import type { Context } from '../http/context.ts';
import type { Sql } from '../store/database.ts';
import { beforeDeadline, requestTimeout } from '../http/deadline.ts';
import type { Lent } from '../store/exclusive.ts';
import { inlinedQueryText, query, queryText } from '../store/queries.ts';
import type { QueryName } from '../store/queryNames.ts';
import { CopyCsv } from './export/copyCsv.ts';
import { copyCsvStatement } from './export/copyStatement.ts';
import { nextChunk, type CopyOut } from './export/copyOut.ts';
import { DIMENSION_KEYS } from './dimensions.ts';
import { rowMetrics, writeMetrics, type Sums } from './metrics.ts';
import type { PreparedData } from './prepare.ts';
import { renderable, renderedQuery, type RenderedFormat } from './export/rendered.ts';

export type DataRow = { dimensions: Record<string, unknown>; metrics: Record<string, number | null> };

type SumRow = Sums & Record<string, unknown>;

const today = (now: number) => new Date(now).toISOString().slice(0, 10);

/** The inclusive day range read: as asked, or for a months report without dates, everything it holds. */
export async function dayRange(lent: Lent, ctx: Context, data: PreparedData, now: number): Promise<{ from: string; to: string }> {
  let { dateFrom: from, dateTo: to } = data.params;
  if (!from || !to) {
    const pending = query<{ first: string | null; last: string | null }>(lent.sql, 'get-report-span', [data.accountIds, data.campaignIds]);
    const [span] = await beforeDeadline(ctx, lent, pending);
    from ??= span.first ?? today(now);
    to ??= span.last ?? today(now);
    if (from > to) from = to;
  }
  return { from, to };
}

/** From this many days, creatives' facts are summed before they are joined (report-data-creative-summed.sql). */
const SUM_CREATIVES_FIRST_DAYS = 28;

const days = (range: { from: string; to: string }) => (Date.parse(range.to) - Date.parse(range.from)) / 86_400_000 + 1;

/**
 * The query of a grouping over range. oneCurrency (the CSV export only): a short creative range with no money to
 * convert reads the facts directly, one join PostgreSQL can share among parallel workers. It needs the CSV export's
 * planner settings (EXPORT_SETTINGS, copyCsv.ts); without them PostgreSQL plans it far slower for many creatives.
 */
/** Each grouping's query, but video and creative, which groupingFile picks by range. */
const GROUPING_FILES = {
  total: 'report-data-total',
  campaign: 'report-data-campaign',
  segment: 'report-data-segment',
  month: 'report-data-month',
  'ad-account': 'report-data-ad-account',
} as const satisfies Partial<Record<PreparedData['grouping'], QueryName>>;

export function groupingFile(grouping: PreparedData['grouping'], range: { from: string; to: string }, oneCurrency = false): QueryName {
  if (grouping !== 'video' && grouping !== 'creative') return GROUPING_FILES[grouping];
  if (days(range) >= SUM_CREATIVES_FIRST_DAYS) return 'report-data-creative-summed';
  return oneCurrency ? 'report-data-creative-one-currency' : 'report-data-creative';
}

function groupingParams(data: PreparedData, range: { from: string; to: string }): never[] {
  const params: unknown[] = [data.accountIds, data.campaignIds, range.from, range.to, data.scope.currency, data.params.nameFilter || null];
  if (data.grouping === 'segment') params.push(data.segmentIds);
  if (data.grouping === 'video' || data.grouping === 'creative') params.push(data.grouping === 'video');
  return params as never[];
}

function groupingQuery(sql: Sql, data: PreparedData, range: { from: string; to: string }) {
  return query<SumRow>(sql, groupingFile(data.grouping, range), groupingParams(data, range));
}

function toRow(row: SumRow, data: PreparedData): DataRow {
  const dimensions: Record<string, unknown> = {};
  for (const key of DIMENSION_KEYS[data.grouping]) dimensions[key] = row[key];
  return { dimensions, metrics: rowMetrics(row, data.metrics) };
}

export async function dataRows(lent: Lent, ctx: Context, data: PreparedData, range: { from: string; to: string }): Promise<DataRow[]> {
  // DECISIONS §6: adAccountIds that name nothing the report holds narrow to nothing: no rows, not a zero row.
  if (data.accountIds.length === 0) return [];
  const sums = await beforeDeadline(ctx, lent, groupingQuery(lent.sql, data, range));
  const rows = sums.map((row) => toRow(row, data));
  const sort = data.params.sort;
  if (sort !== undefined) {
    const direction = data.params.sortDesc ? -1 : 1;
    // Nulls last whichever the direction; ties keep the name order.
    rows.sort((a, b) => {
      const x = a.metrics[sort];
      const y = b.metrics[sort];
      if (x === y) return 0;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x - y) * direction;
    });
  }
  ctx.rowsSent += rows.length;
  return rows;
}

const CURSOR_ROWS = 1_000;

/** One row as an export's cells: the grouping's dimension values, then the metric values, in header order. */
export type Cells = unknown[];

function toCells(row: SumRow, keys: readonly string[], data: PreparedData): Cells {
  const cells: Cells = new Array(keys.length + data.metrics.length);
  for (let i = 0; i < keys.length; i++) cells[i] = row[keys[i]];
  writeMetrics(row, data.metrics, cells, keys.length);
  return cells;
}

type Pending<Row> = { cursor(rows: number): AsyncIterable<Row[]> };

/**
 * A query's rows a batch at a time from a cursor on the request's own connection, so memory does not grow with the
 * row count; batches are small, so each dies young instead of being promoted and collected late. Only a cursor read
 * to its end leaves the connection idle: one given up on (the deadline, the client gone, an error) is never touched
 * again, and its connection is abandoned when the answer is over (heavyLane.ts), its backend ended on the server.
 */
async function* batches<Row>(ctx: Context, lent: Lent, pending: Pending<Row>, rows = CURSOR_ROWS): AsyncGenerator<Row[]> {
  lent.busy();
  const cursor = pending.cursor(rows)[Symbol.asyncIterator]();
  // The next batch is asked for before this one is handed on, so the database works on it while the file is written.
  // A fetch that fails while nobody waits on it (the connection abandoned meanwhile) is not an unhandled rejection.
  const fetch = () => {
    const next = Promise.resolve(cursor.next());
    next.catch(() => {});
    return next;
  };
  let next = fetch();
  for (;;) {
    const result: IteratorResult<Row[]> = await next;
    if (result.done) {
      lent.finished();
      return;
    }
    // A cursor suspended between fetches is not running on the server, so the deadline is checked here as well.
    if (ctx.deadline.aborted) throw requestTimeout();
    next = fetch();
    ctx.rowsSent += result.value.length;
    yield result.value;
  }
}

/**
 * The rows as an export's cells. A sort needs every row's metrics first, so a sorted export reads them all (one row
 * per entity, not per day).
 */
export async function* streamCells(lent: Lent, ctx: Context, data: PreparedData, range: { from: string; to: string }): AsyncGenerator<Cells[]> {
  const keys = DIMENSION_KEYS[data.grouping];
  if (data.params.sort !== undefined || data.accountIds.length === 0) {
    const rows = await dataRows(lent, ctx, data, range);
    yield rows.map((row) => [...keys.map((key) => row.dimensions[key]), ...data.metrics.map((m) => row.metrics[m.name])]);
    return;
  }
  for await (const batch of batches<SumRow>(ctx, lent, groupingQuery(lent.sql, data, range))) {
    const cells = new Array<Cells>(batch.length);
    for (let i = 0; i < batch.length; i++) cells[i] = toCells(batch[i], keys, data);
    yield cells;
  }
}

/** The rows rendered by PostgreSQL in format, each row's UTF-8 bytes; null when the server must write them (a sort, a custom metric). */
function renderedRows(sql: Sql, data: PreparedData, range: { from: string; to: string }, format: RenderedFormat) {
  if (data.params.sort !== undefined || !renderable(data.metrics)) return null;
  const file = groupingFile(data.grouping, range);
  const statement = renderedQuery(queryText(file), data.grouping, data.metrics, format, file);
  return sql.unsafe<Uint8Array[][]>(statement, groupingParams(data, range), { prepare: false }).raw();
}

/** Rows of a data answer read from the cursor at a time, so a long answer holds two batches in memory at most. */
const JSON_BATCH_ROWS = 5_000;

/**
 * The data endpoint's rows as the JSON text of the `rows` array's elements, each row's object rendered by PostgreSQL
 * (rendered.ts), in batches joined with commas (each batch after the first starts with one); null when they must be
 * built here (a sort, a custom metric): row objects, their garbage and JSON.stringify were half the server's CPU of a
 * large answer (BENCHMARKS.md).
 */
export function jsonRows(lent: Lent, ctx: Context, data: PreparedData, range: { from: string; to: string }): AsyncGenerator<Uint8Array> | null {
  if (data.accountIds.length === 0) return (async function* () {})();
  const pending = renderedRows(lent.sql, data, range, 'json');
  if (!pending) return null;
  return (async function* () {
    let first = true;
    for await (const batch of batches<Uint8Array[]>(ctx, lent, pending, JSON_BATCH_ROWS)) {
      yield joined(batch, 0x2c, !first);
      first = false;
    }
  })();
}

/** The rows' bytes in one chunk, in order, with a separator byte between rows (and before the first, if leading). */
function joined(rows: Uint8Array[][], separator?: number, leading = false): Uint8Array {
  const separators = separator === undefined ? 0 : Math.max(0, rows.length - 1) + (leading && rows.length > 0 ? 1 : 0);
  let length = separators;
  for (let i = 0; i < rows.length; i++) length += rows[i][0].length;
  const out = new Uint8Array(length);
  for (let i = 0, at = 0; i < rows.length; i++) {
    if ((i > 0 || leading) && separator !== undefined) out[at++] = separator;
    out.set(rows[i][0], at);
    at += rows[i][0].length;
  }
  return out;
}

/**
 * An XLSX export's worksheet rows, rendered by PostgreSQL (rendered.ts), a batch at a time; null when they must be
 * written from cells (a sort, a custom metric, or no ad account to read). The rows are read raw, as the UTF-8 the
 * database sent: decoding rendered rows into strings only to encode them again was a sixth of the server's time.
 */
export function streamSheetRows(lent: Lent, ctx: Context, data: PreparedData, range: { from: string; to: string }): AsyncGenerator<Uint8Array> | null {
  if (data.accountIds.length === 0) return null;
  const pending = renderedRows(lent.sql, data, range, 'xlsx');
  if (!pending) return null;
  return (async function* () {
    for await (const batch of batches<Uint8Array[]>(ctx, lent, pending)) yield joined(batch);
  })();
}

/**
 * A CSV export's records: the grouping's query run as a binary COPY and written by CopyCsv; null when the rows must be
 * sorted first, there is no ad account to read, or a name filter is asked (streamCells). COPY takes no parameters, so
 * ours are written into its text; a client's text never is: a filtered export binds it, reading through a cursor.
 * Against the query rendering its rows (rendered.ts), PostgreSQL formats nothing and the export runs twice as fast
 * (BENCHMARKS.md, "CSV from a binary COPY").
 */
export function streamCsv(lent: Lent, ctx: Context, data: PreparedData, range: { from: string; to: string }): AsyncGenerator<Uint8Array> | null {
  if (data.params.sort !== undefined || data.params.nameFilter || data.accountIds.length === 0) return null;
  const file = groupingFile(data.grouping, range, data.oneCurrency);
  const statement = copyCsvStatement(inlinedQueryText(file, groupingParams(data, range)), data.grouping, data.metrics, file);
  const records = new CopyCsv(DIMENSION_KEYS[data.grouping], data.metrics);
  return (async function* () {
    lent.busy();
    const stream = (await lent.sql.unsafe(statement).readable()) as unknown as CopyOut;
    // The stream fails if its connection does (a backend killed, the connection abandoned), whether or not anyone is
    // reading it just then: errors reach the reader through nextChunk, and an unheard one must not end the process.
    stream.on('error', () => {});
    for (let chunk = await nextChunk(stream); chunk !== null; chunk = await nextChunk(stream)) {
      // A COPY the client is slow to read waits on its socket: the deadline is checked here too.
      if (ctx.deadline.aborted) throw requestTimeout();
      const written = records.push(chunk);
      ctx.rowsSent = records.rows;
      if (written.length > 0) yield written;
    }
    if (!records.done) throw new Error('the COPY ended before its last row');
    // postgres.js pauses the connection's socket when a COPY's stream is full and resumes it only when the stream is
    // read again: if the last rows filled it, the socket would stay paused and the next query never hear its answer
    // (porsager/postgres#499, #1016). The COPY is over, so the socket is resumed and the connection is idle again.
    lent.resume();
    lent.finished();
  })();
}
