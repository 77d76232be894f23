// The parameters of /v1/reports/{id}/data and both exports (docs/decisions.md §6), checked strictly.
import * as v from 'valibot';
import type { Context } from '../http/context.ts';
import { ApiError } from '../http/problem.ts';
import { readQuery } from '../http/queryParams.ts';

import { GROUPINGS, type Grouping } from '../dataModel.ts';

export { GROUPINGS, type Grouping };

export const MAX_SPAN_DAYS = 400;
const DAY_MS = 86_400_000;

/** docs/decisions.md §13: the days a report can be asked about. */
export const FIRST_DAY = '2000-01-01';
export const LAST_DAY = '2100-12-31';

/** Why value is not a day a report can be asked about, or undefined: YYYY-MM-DD, a calendar day, in the window. */
export function dateProblem(name: string, value: string): string | undefined {
  const parts = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!parts) return `${name} must be a date as YYYY-MM-DD`;
  // Checked by arithmetic: every data request and 304 checks two dates, and a Date made and printed for each costs.
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return `${name} is not a calendar date`;
  if (value < FIRST_DAY || value > LAST_DAY) return `${name} must be from ${FIRST_DAY} to ${LAST_DAY}`;
  return undefined;
}

/** The Gregorian calendar's days in a month (month 1-12). */
function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Strict YYYY-MM-DD naming a real calendar day in the window: 2025-02-30 and 0000-01-01 are refused. */
const isoDate = (name: string) =>
  v.pipe(
    v.string(),
    v.check(
      (s) => dateProblem(name, s) === undefined,
      (issue) => dateProblem(name, String(issue.input)) ?? `${name} is not a date`,
    ),
  );

/**
 * docs/decisions.md §13: a date no report can hold, refused before the charge (the other parameters are checked after
 * it). A repeated date is left to readDataParams, which refuses it.
 */
function impossibleDate(query: Context['query']): ApiError | undefined {
  for (const name of DATE_NAMES) {
    const value = query[name];
    if (typeof value !== 'string') continue;
    const problem = dateProblem(name, value);
    if (problem) return new ApiError('invalid-parameter', `${problem}, got "${value.slice(0, 40)}".`);
  }
  return undefined;
}

const DATE_NAMES = ['dateFrom', 'dateTo', 'compareFrom', 'compareTo'] as const;

/** docs/decisions.md §6: the periods rows can be split into. */
export const INTERVALS = ['day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];

/** How far ahead of this server's clock a changedSince may be, for clocks of servers that differ slightly. */
const CLOCK_SKEW_MS = 60_000;

/** RFC 3339 §5.6 date-time: full date, T (or t, or a space, §5.6's note), time, fraction, Z or an offset. */
const RFC_3339 = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** Why value is not an instant changedSince can name, or undefined. */
function instantProblem(value: string): string | undefined {
  const match = RFC_3339.exec(value);
  if (!match) return 'changedSince must be an RFC 3339 timestamp such as 2026-01-31T23:00:00Z';
  const [, date, hour, minute, second, , , offsetHour, offsetMinute] = match;
  // Any calendar day: an instant before the first fact (1970-01-01T00:00:00Z, say) asks for every period.
  const day = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== date)
    return 'changedSince is not a calendar date';
  if (
    Number(hour) > 23 ||
    Number(minute) > 59 ||
    Number(second) > 59 ||
    Number(offsetHour ?? 0) > 23 ||
    Number(offsetMinute ?? 0) > 59
  ) {
    return 'changedSince is not a time of day';
  }
  if (Date.parse(instantText(value)) > Date.now() + CLOCK_SKEW_MS) return 'changedSince is in the future';
  return undefined;
}

/**
 * An RFC 3339 instant as PostgreSQL and Date.parse both read it: T and Z upper case, the fraction cut to microseconds
 * (cut, never rounded up: an instant a little early returns a period more, never one less), 1970 at the earliest.
 */
function instantText(value: string): string {
  const text = value
    .replace(/^(.{10})[t ]/, '$1T')
    .replace(/z$/, 'Z')
    .replace(/\.(\d{6})\d+/, '.$1');
  // No fact was written before 1970 (PostgreSQL has no year 0 to read, either).
  return Date.parse(text) < 0 ? EPOCH : text;
}

const EPOCH = '1970-01-01T00:00:00Z';

/** A list given as repeated parameters, comma-separated values, or both. */
const list = (name: string, item: v.GenericSchema<string, string>) =>
  v.pipe(
    v.union([v.string(), v.array(v.string())]),
    v.transform((value) =>
      (Array.isArray(value) ? value : [value])
        .flatMap((part) => part.split(','))
        .map((s) => s.trim())
        .filter(Boolean),
    ),
    v.array(item),
    v.maxLength(200, `${name} lists at most 200 values`),
  );

const uuid = (name: string) => v.pipe(v.string(), v.uuid(`${name} must list UUIDs`), v.toLowerCase());

/** docs/decisions.md §6: a row filter, `<field><op><value>`, as given (the report decides what the field is). */
export type Filter = { text: string; field: string; op: FilterOperator; value: string };
export const METRIC_OPERATORS = ['==', '!=', '>', '>=', '<', '<='] as const;
export const DIMENSION_OPERATORS = ['==', '!=', '=@', '!@'] as const;
export type FilterOperator = (typeof METRIC_OPERATORS)[number] | (typeof DIMENSION_OPERATORS)[number];
const MAX_FILTERS = 10;

/** The longest operator first, so `>=` is not read as `>` and a value starting with `=`. */
const OPERATOR = /^(==|!=|>=|<=|=@|!@|>|<)/;

/** A filter's field, operator and value, or why it is none. */
function parseFilter(text: string): Filter | string {
  const field = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text)?.[0];
  if (!field) return `filter ${text} must start with a field name, as in spend>100 or campaignName=@brand`;
  const rest = text.slice(field.length);
  const op = OPERATOR.exec(rest)?.[0] as FilterOperator | undefined;
  if (!op) {
    const given = /^[^A-Za-z0-9_\s]{0,2}/.exec(rest)?.[0] || rest.slice(0, 1) || 'nothing';
    return (
      `filter ${text}: ${given} after ${field} is not an operator; metrics take ${METRIC_OPERATORS.join(' ')}, ` +
      `dimensions ${DIMENSION_OPERATORS.join(' ')}`
    );
  }
  return { text, field, op, value: rest.slice(op.length) };
}

const DataQuery = {
  dateFrom: v.optional(isoDate('dateFrom')),
  dateTo: v.optional(isoDate('dateTo')),
  groupBy: v.optional(v.picklist(GROUPINGS, `groupBy must be one of ${GROUPINGS.join(', ')}`), 'total'),
  metrics: v.optional(list('metrics', v.pipe(v.string(), v.maxLength(63, 'metrics names are at most 63 characters')))),
  adAccountIds: v.optional(list('adAccountIds', uuid('adAccountIds'))),
  segmentIds: v.optional(list('segmentIds', uuid('segmentIds'))),
  sort: v.optional(
    v.pipe(v.string(), v.nonEmpty('sort must name a metric'), v.maxLength(63, 'sort must name a metric')),
  ),
  sortDesc: v.optional(
    v.pipe(
      v.picklist(['true', 'false'], 'sortDesc must be true or false'),
      v.transform((s) => s === 'true'),
    ),
    'false',
  ),
  nameFilter: v.optional(v.pipe(v.string(), v.maxLength(200, 'nameFilter must be at most 200 characters'))),
  interval: v.optional(v.picklist(INTERVALS, `interval must be one of ${INTERVALS.join(', ')}`)),
  filter: v.optional(
    v.pipe(
      v.union([v.string(), v.array(v.string())]),
      v.transform((value) => (Array.isArray(value) ? value : [value])),
      v.maxLength(MAX_FILTERS, `filter is given at most ${MAX_FILTERS} times`),
      v.array(
        v.pipe(
          v.string(),
          v.maxLength(200, 'filter must be at most 200 characters'),
          v.rawTransform(({ dataset, addIssue, NEVER }) => {
            const parsed = parseFilter(dataset.value);
            if (typeof parsed === 'string') {
              addIssue({ message: parsed });
              return NEVER;
            }
            return parsed;
          }),
        ),
      ),
    ),
  ),
  summary: v.optional(
    v.pipe(
      v.picklist(['true', 'false'], 'summary must be true or false'),
      v.transform((s) => s === 'true'),
    ),
    'false',
  ),
  compareFrom: v.optional(isoDate('compareFrom')),
  compareTo: v.optional(isoDate('compareTo')),
  changedSince: v.optional(
    v.pipe(
      v.string(),
      v.check(
        (s) => instantProblem(s) === undefined,
        (issue) => instantProblem(String(issue.input)) ?? 'changedSince is not a timestamp',
      ),
      v.transform(instantText),
    ),
  ),
};

export type DataParams = v.InferOutput<v.ObjectSchema<typeof DataQuery, undefined>>;

const MULTI = new Set(['metrics', 'adAccountIds', 'segmentIds', 'filter']);

/** What can be checked without the report: syntax, and the date range's own rules. */
export function readDataParams(ctx: Pick<Context, 'query'>): DataParams {
  const params = readQuery(ctx, DataQuery, MULTI);
  if (params.dateFrom && params.dateTo) {
    const span = (Date.parse(params.dateTo) - Date.parse(params.dateFrom)) / DAY_MS;
    if (span < 0)
      throw new ApiError('invalid-parameter', `dateFrom (${params.dateFrom}) is after dateTo (${params.dateTo}).`);
    if (span > MAX_SPAN_DAYS) {
      throw new ApiError(
        'invalid-parameter',
        `dateFrom and dateTo are ${span} days apart; at most ${MAX_SPAN_DAYS} are allowed.`,
      );
    }
  }
  if (params.interval && params.groupBy === 'month') {
    throw new ApiError(
      'invalid-parameter',
      'interval does not apply to groupBy=month, whose rows are months already; use groupBy=total&interval=month.',
    );
  }
  const { compareFrom, compareTo } = params;
  if ((compareFrom === undefined) !== (compareTo === undefined)) {
    throw new ApiError('invalid-parameter', 'compareFrom and compareTo go together: give both, or neither.');
  }
  if (compareFrom && compareTo) {
    const span = (Date.parse(compareTo) - Date.parse(compareFrom)) / DAY_MS;
    if (span < 0)
      throw new ApiError('invalid-parameter', `compareFrom (${compareFrom}) is after compareTo (${compareTo}).`);
    if (span > MAX_SPAN_DAYS) {
      throw new ApiError(
        'invalid-parameter',
        `compareFrom and compareTo are ${span} days apart; at most ${MAX_SPAN_DAYS} are allowed.`,
      );
    }
    if (params.interval || params.changedSince) {
      throw new ApiError('invalid-parameter', 'compareFrom and compareTo do not apply with interval or changedSince.');
    }
  }
  if (params.changedSince && !params.interval) {
    throw new ApiError(
      'invalid-parameter',
      'changedSince requires interval: it returns whole periods (day, week or month) in which facts were written.',
    );
  }
  return params;
}

/**
 * A report data or export request's query, read once into what every step uses (docs/decisions.md §4's order): a
 * date no report can hold, refused before the charge; the parameters, or their problem answered after it; and the
 * ad accounts it asks about, which the charge counts either way (read leniently when the parameters are refused).
 */
export type ReportQuery = {
  impossibleDate: ApiError | undefined;
  params: DataParams | ApiError;
  costAccounts: string[] | undefined;
  /** 2 when a comparison range is asked (read leniently too): the cost counts each range read. */
  ranges: 1 | 2;
};

export function readReportQuery(ctx: Pick<Context, 'query'>): ReportQuery {
  let params: DataParams | ApiError;
  try {
    params = readDataParams(ctx);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    params = error;
  }
  const costAccounts = params instanceof ApiError ? leniently(ctx.query.adAccountIds) : params.adAccountIds;
  const compared = params instanceof ApiError ? ctx.query.compareFrom !== undefined : params.compareFrom !== undefined;
  return { impossibleDate: impossibleDate(ctx.query), params, costAccounts, ranges: compared ? 2 : 1 };
}

/** adAccountIds as given, for the cost of a request whose parameters are refused. */
function leniently(raw: string | string[] | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  return (Array.isArray(raw) ? raw : [raw]).flatMap((s) => s.split(',')).map((s) => s.trim().toLowerCase());
}
