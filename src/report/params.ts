// The parameters of /v1/reports/{id}/data and both exports (spec §4.4, DECISIONS §6), checked strictly.
import * as v from 'valibot';
import type { Context } from '../http/context.ts';
import { ApiError } from '../http/problem.ts';
import { readQuery } from '../http/queryParams.ts';

import { GROUPINGS, type Grouping } from '../dataModel.ts';

export { GROUPINGS, type Grouping };

export const MAX_SPAN_DAYS = 400;
const DAY_MS = 86_400_000;

/** DECISIONS §13: the days a report can be asked about. */
export const FIRST_DAY = '2000-01-01';
export const LAST_DAY = '2100-12-31';

/** Why value is not a day a report can be asked about, or undefined: YYYY-MM-DD, a calendar day, in the window. */
export function dateProblem(name: string, value: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${name} must be a date as YYYY-MM-DD`;
  const d = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value) return `${name} is not a calendar date`;
  if (value < FIRST_DAY || value > LAST_DAY) return `${name} must be from ${FIRST_DAY} to ${LAST_DAY}`;
  return undefined;
}

/** Strict YYYY-MM-DD naming a real calendar day in the window: 2025-02-30 and 0000-01-01 are refused. */
const isoDate = (name: string) =>
  v.pipe(
    v.string(),
    v.check((s) => dateProblem(name, s) === undefined, (issue) => dateProblem(name, String(issue.input)) ?? `${name} is not a date`),
  );

/**
 * DECISIONS §13: a date no report can hold is refused before the charge (the other parameters are checked after it).
 * A repeated date is left to readDataParams, which refuses it.
 */
export function refuseImpossibleDates(ctx: Context): void {
  for (const name of ['dateFrom', 'dateTo'] as const) {
    const value = ctx.query[name];
    if (typeof value !== 'string') continue;
    const problem = dateProblem(name, value);
    if (problem) throw new ApiError('invalid-parameter', `${problem}, got "${value.slice(0, 40)}".`);
  }
}

/** A list given as repeated parameters, comma-separated values, or both. */
const list = (name: string, item: v.GenericSchema<string, string>) =>
  v.pipe(
    v.union([v.string(), v.array(v.string())]),
    v.transform((value) => (Array.isArray(value) ? value : [value]).flatMap((part) => part.split(',')).map((s) => s.trim()).filter(Boolean)),
    v.array(item),
    v.maxLength(200, `${name} lists at most 200 values`),
  );

const uuid = (name: string) => v.pipe(v.string(), v.uuid(`${name} must list UUIDs`), v.toLowerCase());

const DataQuery = {
  dateFrom: v.optional(isoDate('dateFrom')),
  dateTo: v.optional(isoDate('dateTo')),
  groupBy: v.optional(v.picklist(GROUPINGS, `groupBy must be one of ${GROUPINGS.join(', ')}`), 'total'),
  metrics: v.optional(list('metrics', v.pipe(v.string(), v.maxLength(63, 'metrics names are at most 63 characters')))),
  adAccountIds: v.optional(list('adAccountIds', uuid('adAccountIds'))),
  segmentIds: v.optional(list('segmentIds', uuid('segmentIds'))),
  sort: v.optional(v.pipe(v.string(), v.nonEmpty('sort must name a metric'), v.maxLength(63, 'sort must name a metric'))),
  sortDesc: v.optional(v.pipe(v.picklist(['true', 'false'], 'sortDesc must be true or false'), v.transform((s) => s === 'true')), 'false'),
  nameFilter: v.optional(v.pipe(v.string(), v.maxLength(200, 'nameFilter must be at most 200 characters'))),
};

export type DataParams = v.InferOutput<v.ObjectSchema<typeof DataQuery, undefined>>;

const MULTI = new Set(['metrics', 'adAccountIds', 'segmentIds']);

/** What can be checked without the report: syntax, and the date range's own rules. */
export function readDataParams(ctx: Context): DataParams {
  const params = readQuery(ctx, DataQuery, MULTI);
  if (params.dateFrom && params.dateTo) {
    const span = (Date.parse(params.dateTo) - Date.parse(params.dateFrom)) / DAY_MS;
    if (span < 0) throw new ApiError('invalid-parameter', `dateFrom (${params.dateFrom}) is after dateTo (${params.dateTo}).`);
    if (span > MAX_SPAN_DAYS) {
      throw new ApiError('invalid-parameter', `dateFrom and dateTo are ${span} days apart; at most ${MAX_SPAN_DAYS} are allowed.`);
    }
  }
  return params;
}

/** Lenient read of adAccountIds for the quota cost, which is worked out before parameters are checked. */
export function adAccountIdsForCost(ctx: Context): string[] | undefined {
  const raw = ctx.query.adAccountIds;
  if (raw === undefined) return undefined;
  return (Array.isArray(raw) ? raw : [raw]).flatMap((s) => s.split(',')).map((s) => s.trim().toLowerCase());
}
