// A report's query (request.ts has checked the request): the range it reads, the grouping's SQL file, sorted as asked,
// and its rows read a batch at a time from the request's own connection (lane.ts). The formats (formats/) write them.
import type { Context } from '../http/context.ts';
import type { Sql } from '../store/database.ts';
import { beforeDeadline, requestTimeout } from '../http/deadline.ts';
import { nextTurn } from '../http/turn.ts';
import type { Lent } from '../store/exclusive.ts';
import { clientValuesOf, query, queryText, statement, type QueryParam } from '../store/queries.ts';
import { replacePlaceholders } from '../store/placeholders.ts';
import type { QueryName } from '../store/queryNames.ts';
import { filterSql } from './filters.ts';
import { withDeclared } from './declared.ts';
import { tidySql } from './numberRules.ts';
import {
  BASE_METRICS,
  COMPARED,
  comparedSums,
  formulaColumns,
  SYSTEM_METRICS,
  writeMetrics,
  type Sums,
} from './metrics.ts';
import type { Grouping, Interval } from './params.ts';
import type { PreparedData } from './prepare.ts';
import { quoted, renderedQuery } from './formats/rendered.ts';

export type SumRow = Sums & Record<string, unknown>;

/** The inclusive day range an answer covers. */
export type DayRange = { from: string; to: string };

const CURSOR_ROWS = 1_000;

const today = (now: number) => new Date(now).toISOString().slice(0, 10);

/** The inclusive day range read: as asked, or for a months report without dates, everything it holds. */
export async function dayRange(lent: Lent, ctx: Context, data: PreparedData, now: number): Promise<DayRange> {
  let { dateFrom: from, dateTo: to } = data.params;
  if (!from || !to) {
    const pending = query(lent.sql, 'get-report-span', { accountIds: data.accountIds, campaignIds: data.campaignIds });
    const [span] = await beforeDeadline(ctx, lent, pending);
    from ??= span.first ?? today(now);
    to ??= span.last ?? today(now);
    if (from > to) from = to;
  }
  return { from, to };
}

/** From this many days, the shortest span's length, creatives are read from spans (report-data-creative-summed.sql). */
const CREATIVE_SPANS_FROM_DAYS = 4;

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
  if (days(range) >= CREATIVE_SPANS_FROM_DAYS) return 'report-data-creative-summed';
  return oneCurrency ? 'report-data-creative-one-currency' : 'report-data-creative';
}

/** A grouping's parameters by the names its query files give them (report/declared.ts reads the same names). */
function groupingParams(data: PreparedData, range: DayRange): Record<string, QueryParam> {
  return {
    accountIds: data.accountIds,
    campaignIds: data.campaignIds,
    from: range.from,
    to: range.to,
    currency: data.scope.currency,
    nameFilter: data.params.nameFilter || null,
    interval: data.params.interval ?? null,
    changedSince: data.params.changedSince ?? null,
    segmentIds: data.segmentIds,
    video: data.grouping === 'video',
  };
}

/** The columns that order a grouping's rows (its query's own order): by name, then id; months ascending. */
const ROW_ORDER: Record<Grouping, readonly string[]> = {
  total: [],
  campaign: ['campaignName', 'campaignId'],
  segment: ['segmentName', 'segmentId'],
  month: ['month'],
  'ad-account': ['adAccountName', 'adAccountId'],
  video: ['creativeName', 'creativeId'],
  creative: ['creativeName', 'creativeId'],
};

/** The key on which a row of the comparison range is the same row as one of the main range; total: its one row. */
const MATCHED_ON: Record<Grouping, string | null> = {
  total: null,
  campaign: 'campaignId',
  segment: 'segmentId',
  month: 'month',
  'ad-account': 'adAccountId',
  video: 'creativeId',
  creative: 'creativeId',
};

/** Money is null when any of its parts is (docs/decisions.md §6); the other sums of no rows are 0. */
const MONEY: ReadonlySet<string> = new Set(BASE_METRICS.filter((name) => SYSTEM_METRICS[name].kind === 'money'));

/**
 * A grouping's statement: its query file's text, or that text composed with later stages, its parameters by name, and
 * the names of those that are a client's values (the name filter, the filters'), never written into a statement.
 */
export type Statement = {
  file: QueryName;
  text: string;
  params: Record<string, QueryParam>;
  client: readonly string[];
};

/** A grouping's query file and its parameters; the file's header names its client's values. */
function source(data: PreparedData, range: DayRange, oneCurrency: boolean): Statement {
  const file = groupingFile(data.grouping, range, oneCurrency, data.params.interval);
  const order = [...(data.params.interval ? ['period'] : []), ...ROW_ORDER[data.grouping]];
  const text = data.declared.length
    ? withDeclared(
        queryText(file),
        data.grouping,
        data.declared,
        order,
        data.params.interval,
        data.campaignIds !== null,
      )
    : queryText(file);
  return { file, text, params: groupingParams(data, range), client: clientValuesOf(file) };
}

/**
 * The comparison range's statement beside main's: each parameter whose value differs from main's (the range's bounds)
 * renamed `compared…`, the rest shared.
 */
function beside(main: Statement, other: Statement): Statement {
  const names: Record<string, string> = {};
  for (const [name, value] of Object.entries(other.params)) {
    names[name] = Object.is(value, main.params[name]) ? name : `compared${name[0].toUpperCase()}${name.slice(1)}`;
  }
  const params = Object.fromEntries(Object.entries(other.params).map(([name, value]) => [names[name], value]));
  const text = replacePlaceholders(other.text, (name) => `:${names[name] ?? name}`);
  return { ...other, text, params, client: other.client.map((name) => names[name]) };
}

/**
 * The rows of both ranges matched on their key (docs/decisions.md §6): each row's dimension keys from whichever range
 * has it, its sums, and the comparison range's as COMPARED + name; a range without the row has zero sums.
 */
function bothRanges(main: string, other: string, data: PreparedData): string {
  const on = MATCHED_ON[data.grouping];
  const side = (text: string) => `(select s.*, true as _side from (\n${text}\n) s)`;
  const sums = (alias: string, prefix: string) =>
    sumNames(data).map((name) => `case when ${alias}._side then ${alias}.${name} else 0 end as ${prefix}${name}`);
  const columns = [
    ...data.keys.map((key) => `coalesce(m.${quoted(key)}, c.${quoted(key)}) as ${quoted(key)}`),
    ...sums('m', ''),
    ...sums('c', COMPARED),
  ];
  const join = on === null ? 'cross join' : 'full join';
  const condition = on === null ? '' : ` on m.${quoted(on)} = c.${quoted(on)}`;
  return `select ${columns.join(', ')} from ${side(main)} m ${join} ${side(other)} c${condition}`;
}

/** A grouping's sums: the system base metrics', then the declared ones the answer uses (report/declared.ts). */
const sumNames = (data: PreparedData): readonly string[] =>
  data.declared.length ? [...BASE_METRICS, ...data.declared.map((sum) => sum.column)] : BASE_METRICS;

/** A composed row's sums: the base metrics', then with a comparison range the same over it. */
const sumColumns = (data: PreparedData) => [
  ...sumNames(data),
  ...(data.compared ? sumNames(data).map((name) => COMPARED + name) : []),
];

/** A last row of totals after rows (marked _total): the sums of every row, money null where any row's is. */
function withSummary(rows: string, data: PreparedData): string {
  const money = new Set([...MONEY, ...data.declared.filter((sum) => sum.money).map((sum) => sum.column)]);
  const total = (column: string) =>
    money.has(column.replace(COMPARED, ''))
      ? `case when count(*) = count(${column}) then coalesce(sum(${column}), 0) end`
      : `coalesce(sum(${column}), 0)`;
  const columns = [...data.keys.map(() => 'null'), ...sumColumns(data).map(total), 'true'];
  return (
    `with answer as (\n${rows}\n)\n` +
    `select a.*, false as _total from answer a union all select ${columns.join(', ')} from answer`
  );
}

/**
 * The answer's statement over range: the grouping's query (groupingFile), and on it, each stage asked for, written
 * once for every grouping, interval and currency (docs/decisions.md §6): the comparison range's rows matched to the
 * main range's, the filters (values bound), the answer's order (sorted by a metric, ties by name; with an interval,
 * period first), the summary's row. A plain answer is the query file itself. oneCurrency: see groupingFile.
 */
export function answerStatement(data: PreparedData, range: DayRange, oneCurrency = false): Statement {
  const main = source(data, range, oneCurrency);
  const { sort, interval, compareFrom, compareTo } = data.params;
  if (sort === undefined && interval === undefined && !data.compared && !data.summary && data.filters.length === 0) {
    return main;
  }
  const params = { ...main.params };
  const client = [...main.client];
  let rowsOf = main.text;
  if (data.compared) {
    const other = beside(main, source(data, { from: compareFrom!, to: compareTo! }, oneCurrency));
    rowsOf = bothRanges(main.text, other.text, data);
    Object.assign(params, other.params);
    client.push(...other.client.filter((name) => !client.includes(name)));
  }
  const metric = sort === undefined ? undefined : data.metrics.find((m) => m.name === sort)!;
  const filtered = data.filters.flatMap((filter) => (filter.on === 'metric' ? [filter.metric] : []));
  const computed = formulaColumns(rowsOf, metric ? [...filtered, metric] : filtered);
  const from = `(\n${computed.source}\n) s`;
  let filters = 0;
  const bind = (value: string | number) => {
    const name = `filter${++filters}`;
    params[name] = value;
    client.push(name);
    return `:${name}`;
  };
  const where = data.filters.map((filter) => filterSql(filter, bind, computed.sql));
  const columns = [
    ...data.keys.map((key) => (key === interval ? `s.period as ${quoted(key)}` : `s.${quoted(key)}`)),
    ...sumColumns(data).map((sum) => `s.${sum}`),
  ];
  // The grouping's query is in the answer's order already, and a filter or the summary's CTE keeps it; a sort or the
  // comparison's join orders anew. (Ordering again by the text of a period its query sorts by date would sort
  // every row a second time.)
  const order =
    !metric && !data.compared
      ? []
      : [
          ...(interval === undefined ? [] : ['s.period']),
          ...(metric ? [`${tidySql(computed.sql(metric))} ${data.params.sortDesc ? 'desc' : 'asc'} nulls last`] : []),
          ...ROW_ORDER[data.grouping].map((key) => `s.${quoted(key)}`),
        ];
  const rows =
    `select ${columns.join(', ')} from ${from}` +
    (where.length ? ` where ${where.join(' and ')}` : '') +
    (order.length ? ` order by ${order.join(', ')}` : '');
  return { file: main.file, text: data.summary ? withSummary(rows, data) : rows, params, client };
}

/** One row as an export's cells: the grouping's dimension values, then the metric values, in header order. */
export type Cells = unknown[];

/** One row as an export's cells (the summary's: Total, then empty dimension cells), the comparison range's last. */
export function toCells(row: SumRow, data: PreparedData): Cells {
  const { keys, metrics } = data;
  const cells: Cells = new Array(keys.length + metrics.length * (data.compared ? 2 : 1));
  for (let i = 0; i < keys.length; i++) cells[i] = row._total ? (i === 0 ? 'Total' : null) : row[keys[i]];
  writeMetrics(row, metrics, cells, keys.length);
  if (data.compared) writeMetrics(comparedSums(row, data.declared), metrics, cells, keys.length + metrics.length);
  return cells;
}

/** The summary of no rows, for an answer with no ad account to read: zero sums (docs/decisions.md §6). */
export function emptySummary(data: PreparedData): SumRow {
  const row: SumRow = { _total: true } as unknown as SumRow;
  for (const name of sumNames(data)) (row as Record<string, unknown>)[name] = row[COMPARED + name] = 0;
  return row;
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

/** The rows rendered by PostgreSQL as worksheet rows, each row's UTF-8 bytes; a client's values bound. */
export function renderedRows(sql: Sql, data: PreparedData, range: DayRange) {
  const { file, text, params } = answerStatement(data, range);
  return statement<Uint8Array[][]>(sql, renderedQuery(text, data, file), params).raw();
}

/** The rows' bytes in one chunk, in order. */
export function joined(rows: Uint8Array[][]): Uint8Array {
  let length = 0;
  for (let i = 0; i < rows.length; i++) length += rows[i][0].length;
  const out = new Uint8Array(length);
  for (let i = 0, at = 0; i < rows.length; i++) {
    out.set(rows[i][0], at);
    at += rows[i][0].length;
  }
  return out;
}
