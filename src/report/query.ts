// A report's query (request.ts has checked the request): the range it reads, the grouping's SQL file, sorted as asked,
// and its rows read a batch at a time from the request's own connection (lane.ts). The formats (formats/) write them.
import type { Context } from '../http/context.ts';
import type { Sql } from '../store/database.ts';
import { beforeDeadline, requestTimeout } from '../http/deadline.ts';
import { nextTurn } from '../http/turn.ts';
import type { Lent } from '../store/exclusive.ts';
import { query, queryAs, queryText, statement, type Queryable, type QueryParam } from '../store/queries.ts';
import type { QueryName } from '../store/queryNames.ts';
import { metricSql, tidySql, writeMetrics, type Sums } from './metrics.ts';
import type { Interval } from './params.ts';
import type { PreparedData } from './request.ts';
import { quoted, renderedQuery, type RenderedFormat } from './formats/rendered.ts';

export type SumRow = Sums & Record<string, unknown>;

/** The inclusive day range an answer covers. */
export type DayRange = { from: string; to: string };

const CURSOR_ROWS = 1_000;

const today = (now: number) => new Date(now).toISOString().slice(0, 10);

/** The inclusive day range read: as asked, or for a months report without dates, everything it holds. */
export async function dayRange(lent: Lent, ctx: Context, data: PreparedData, now: number): Promise<DayRange> {
  let { dateFrom: from, dateTo: to } = data.params;
  if (!from || !to) {
    const pending = query(lent.sql, 'get-report-span', [data.accountIds, data.campaignIds]);
    const [span] = await beforeDeadline(ctx, lent, pending);
    from ??= span.first ?? today(now);
    to ??= span.last ?? today(now);
    if (from > to) from = to;
  }
  return { from, to };
}

/** From this many days, creatives' facts are summed before they are joined (report-data-creative-summed.sql). */
const SUM_CREATIVES_FIRST_DAYS = 28;

const days = (range: DayRange) => (Date.parse(range.to) - Date.parse(range.from)) / 86_400_000 + 1;

/** Each grouping's query, but video and creative, which groupingFile picks by range. */
const GROUPING_FILES = {
  total: 'report-data-total',
  campaign: 'report-data-campaign',
  segment: 'report-data-segment',
  month: 'report-data-month',
  'ad-account': 'report-data-ad-account',
} as const satisfies Partial<Record<PreparedData['grouping'], QueryName>>;

/** Each grouping's query a period at a time (interval), but month, which takes none; groupingFile picks days' own. */
const PERIOD_FILES = {
  total: 'report-periods-total',
  campaign: 'report-periods-campaign',
  segment: 'report-periods-segment',
  'ad-account': 'report-periods-ad-account',
  video: 'report-periods-creative',
  creative: 'report-periods-creative',
} as const satisfies Partial<Record<PreparedData['grouping'], QueryName>>;

/**
 * The query of a grouping over range. oneCurrency (the CSV export only): a short creative range with no money to
 * convert reads the facts directly, one join PostgreSQL can share among parallel workers. It needs the CSV export's
 * planner settings (EXPORT_SETTINGS, copyStatement.ts); without them PostgreSQL plans it far slower for many creatives.
 */
export function groupingFile(
  grouping: PreparedData['grouping'],
  range: DayRange,
  oneCurrency = false,
  interval?: Interval,
): QueryName {
  if (interval === 'day' && (grouping === 'campaign' || grouping === 'video' || grouping === 'creative')) {
    return grouping === 'campaign' ? 'report-days-campaign' : 'report-days-creative';
  }
  if (interval !== undefined && grouping !== 'month') return PERIOD_FILES[grouping];
  if (grouping !== 'video' && grouping !== 'creative') return GROUPING_FILES[grouping];
  if (days(range) >= SUM_CREATIVES_FIRST_DAYS) return 'report-data-creative-summed';
  return oneCurrency ? 'report-data-creative-one-currency' : 'report-data-creative';
}

function groupingParams(data: PreparedData, range: DayRange): QueryParam[] {
  const params: QueryParam[] = [
    data.accountIds,
    data.campaignIds,
    range.from,
    range.to,
    data.scope.currency,
    data.params.nameFilter || null,
  ];
  if (data.params.interval) params.push(data.params.interval, data.params.changedSince ?? null);
  if (data.grouping === 'segment') params.push(data.segmentIds);
  if (data.grouping === 'video' || data.grouping === 'creative') params.push(data.grouping === 'video');
  return params;
}

/** The columns that order a sortable grouping's rows by name (its query's own order), for ties of a sort. */
const NAME_ORDER: Partial<Record<PreparedData['grouping'], readonly string[]>> = {
  campaign: ['campaignName', 'campaignId'],
  video: ['creativeName', 'creativeId'],
  creative: ['creativeName', 'creativeId'],
};

/**
 * source, ordered as the answer is: unsorted, as it is (by name, month ascending); sorted, by the metric as the
 * answer gives it (tidied, so equal values tie), nulls last in either direction, ties by name. PostgreSQL sorts, so
 * a sorted answer streams like any other. With an interval, source's `period` column is named after it, and rows are
 * in period order first, sorted within each period.
 */
function ordered(source: string, data: PreparedData): string {
  const { sort, interval } = data.params;
  if (sort === undefined && interval === undefined) return source;
  const columns = interval === undefined ? '*' : `s.period as ${quoted(interval)}, s.*`;
  if (sort === undefined) return `select ${columns} from (\n${source}\n) s`;
  const metric = data.metrics.find((m) => m.name === sort)!;
  const order = [
    ...(interval === undefined ? [] : ['s.period']),
    `${tidySql(metricSql(metric))} ${data.params.sortDesc ? 'desc' : 'asc'} nulls last`,
    ...NAME_ORDER[data.grouping]!.map((key) => `s.${quoted(key)}`),
  ];
  return `select ${columns} from (\n${source}\n) s order by ${order.join(', ')}`;
}

/** The grouping's statement over range, ordered as the answer is, with its parameters. */
export function groupingStatement(data: PreparedData, range: DayRange, oneCurrency = false) {
  const file = groupingFile(data.grouping, range, oneCurrency, data.params.interval);
  return { file, text: ordered(queryText(file), data), params: groupingParams(data, range) };
}

/** The grouping's rows, planned for this call's parameters (queries.ts). */
export function groupingQuery<Row extends object>(sql: Queryable, data: PreparedData, range: DayRange) {
  const { file, text, params } = groupingStatement(data, range);
  const plain = data.params.sort === undefined && data.params.interval === undefined;
  return plain ? queryAs<Row>(sql, file, params) : statement<Row>(sql, text, params);
}

/** One row as an export's cells: the grouping's dimension values, then the metric values, in header order. */
export type Cells = unknown[];

export function toCells(row: SumRow, keys: readonly string[], data: PreparedData): Cells {
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
 * again, and its connection is abandoned when the answer is over (lane.ts), its backend ended on the server.
 */
export async function* batches<Row>(
  ctx: Context,
  lent: Lent,
  pending: Pending<Row>,
  rows = CURSOR_ROWS,
): AsyncGenerator<Row[]> {
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
    await nextTurn();
  }
}

/** The rows rendered by PostgreSQL in format, each row's UTF-8 bytes. */
export function renderedRows(sql: Sql, data: PreparedData, range: DayRange, format: RenderedFormat) {
  const { file, text, params } = groupingStatement(data, range);
  return statement<Uint8Array[][]>(sql, renderedQuery(text, data.keys, data.metrics, format, file), params).raw();
}

/** The rows' bytes in one chunk, in order, with a separator byte between rows (and before the first, if leading). */
export function joined(rows: Uint8Array[][], separator?: number, leading = false): Uint8Array {
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
