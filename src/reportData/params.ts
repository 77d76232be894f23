// The parameters of /v1/reports/{id}/data and both exports (spec §4.4, DECISIONS §6), checked strictly.
import * as v from 'valibot';
import type { Context } from '../context.ts';
import { ApiError } from '../problem.ts';
import { readQuery } from '../queryParams.ts';

export const GROUPINGS = ['total', 'campaign', 'segment', 'month', 'ad-account', 'video', 'creative'] as const;
export type Grouping = (typeof GROUPINGS)[number];

export const MAX_SPAN_DAYS = 400;
const DAY_MS = 86_400_000;

/** Strict YYYY-MM-DD naming a real calendar day: 2025-02-30 is refused. */
const isoDate = (name: string) =>
  v.pipe(
    v.string(),
    v.regex(/^\d{4}-\d{2}-\d{2}$/, `${name} must be a date as YYYY-MM-DD`),
    v.check((s) => {
      const d = new Date(`${s}T00:00:00Z`);
      return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
    }, `${name} is not a calendar date`),
  );

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
