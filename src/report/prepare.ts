// A report data or export request after its charge: checked against the report it names, and everything the answer
// depends on worked out once, its ETag included (docs/decisions.md §6).
import { createHash } from 'node:crypto';
import type { Context } from '../http/context.ts';
import type { Plan } from '../http/caller.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import { ApiError } from '../http/problem.ts';
import { didYouMean } from '../http/nearest.ts';
import { notFound } from '../auth/visibility.ts';
import { metricCatalogue, type DeclaredSum, type MetricPlan } from './metrics.ts';
import { declaredUsed } from './declared.ts';
import type { DataParams, Grouping } from './params.ts';
import { DIMENSION_KEYS } from './dimensions.ts';
import { planFilters, type FilterPlan } from './filters.ts';
import type { ReportCall } from './request.ts';
import { accountsInScope, readScope, type ReportScope } from './scope.ts';

export type PreparedData = {
  scope: ReportScope;
  params: DataParams;
  grouping: Grouping;
  /** The rows' dimension keys: the interval's (day, week or month) first, if one is asked, then the grouping's. */
  keys: readonly string[];
  metrics: MetricPlan[];
  /** The declared base metrics' sums the metrics, filters and sort use (report/declared.ts). */
  declared: DeclaredSum[];
  /** The row filters, checked against the rows (filters.ts). */
  filters: FilterPlan[];
  /** A comparison range is asked: each row carries its metrics over it too (docs/decisions.md §6). */
  compared: boolean;
  /** A last row of totals is asked. */
  summary: boolean;
  accountIds: string[];
  /** Every account read keeps its money in the report's currency: nothing to convert. */
  oneCurrency: boolean;
  /** Segment reports read only their segments' campaigns; null reads every campaign. */
  campaignIds: string[] | null;
  segmentIds: string[];
  /** Newest successful fetch among the accounts in scope, ISO 8601, or null. */
  freshness: string | null;
  /** freshness as an HTTP date (RFC 9110 §5.6.7), for Last-Modified; null without it. */
  lastModified: string | null;
  /** With an interval: the changedSince to resume from (changes.ts). */
  resume?: string;
  etag: string;
};

const SORTABLE: Grouping[] = ['campaign', 'video', 'creative'];
const UNNAMED: Grouping[] = ['total', 'month'];

const bad = (detail: string) => new ApiError('invalid-parameter', detail);

/**
 * node:crypto, which Bun and Deno provide as well: an order of magnitude faster than Web Crypto's digest for input
 * this small, and every data request and every 304 computes one.
 */
function weakEtag(parts: unknown): string {
  return `W/"${createHash('sha256').update(JSON.stringify(parts)).digest().subarray(0, 18).toString('base64url')}"`;
}

/**
 * An organization's metric catalogue, kept by what its custom metrics say, so a read of a report does not parse every
 * custom formula again. A few hundred sets at most, the oldest dropped first.
 */
const catalogues = new Map<string, Map<string, MetricPlan>>();
const KEPT_CATALOGUES = 256;
function catalogueOf(scope: ReportScope): Map<string, MetricPlan> {
  const key = JSON.stringify(scope.custom_metrics);
  let catalogue = catalogues.get(key);
  if (!catalogue) {
    if (catalogues.size >= KEPT_CATALOGUES) catalogues.delete(catalogues.keys().next().value!);
    catalogues.set(key, (catalogue = metricCatalogue(scope.custom_metrics)));
  }
  return catalogue;
}

/**
 * What a report as read answers to a query, kept with that read: the requests that share a read (report/scope.ts)
 * mostly ask the same (a dashboard's refresh), and working it out, its ETag's hash included, is most of a 304's own
 * work. Keyed by everything it depends on besides the report: the format, the plan's metric set and the query.
 */
const described = new WeakMap<ReportScope, Map<string, Omit<PreparedData, 'resume'>>>();
const KEPT_ANSWERS = 256;

export async function prepareData(ctx: Context, call: ReportCall, format: string): Promise<PreparedData> {
  // Parameters that need no report first (400), then the report itself (404), then the rules it sets (400).
  const request = call.report;
  if (request.params instanceof ApiError) throw request.params;
  const params = request.params;
  // The store did not answer before the charge, and did since: read it now (an error now is the answer).
  const scope = request.scope === 'unread' ? await readScope(call.reads.sql, ctx, call.principal) : request.scope;
  if (!scope) throw notFound('report');
  const query = ctx.url.indexOf('?') < 0 ? '' : ctx.url.slice(ctx.url.indexOf('?'));
  const prepared = answerPlan(scope, params, call.plan, format, query);
  if (request.resume instanceof Error) throw request.resume;
  return { ...prepared, resume: params.interval ? request.resume : undefined };
}

/**
 * The answer's plan and ETag for params, read from query (the URL's, from its `?`), kept with the read of the report
 * (`described`); a request it cannot answer is a 400 (or a 503 for broken connections).
 */
export function answerPlan(
  scope: ReportScope,
  params: DataParams,
  plan: Plan,
  format: string,
  query: string,
): Omit<PreparedData, 'resume'> {
  const key = `${format} ${plan.conversionMetrics} ${query}`;
  let answers = described.get(scope);
  if (!answers) described.set(scope, (answers = new Map()));
  let prepared = answers.get(key);
  if (!prepared) {
    prepared = describe(scope, params, plan, format);
    // A scope can be kept for long (report/scope.ts currentScope): a few hundred queries each, the oldest dropped.
    if (answers.size >= KEPT_ANSWERS) answers.delete(answers.keys().next().value!);
    answers.set(key, prepared);
  }
  return prepared;
}

/** Names the unknown metrics, the nearest known ones, and every metric the caller's plan gives. */
function unknownMetrics(unknown: string[], catalogue: ReadonlyMap<string, MetricPlan>, plan: Plan): string {
  const given = [...catalogue.values()]
    .filter((m) => plan.conversionMetrics || !m.conversionDerived)
    .map((m) => m.name);
  const meant = didYouMean(unknown[0], given);
  const plural = unknown.length > 1 ? 'unknown metrics' : 'unknown metric';
  return `metrics: ${plural} ${unknown.join(', ')}; ${meant ? `${meant} ` : ''}Known: ${given.join(', ')}.`;
}

/**
 * The metrics an answer returns (docs/decisions.md §6: conversion-derived ones silently absent on plans without them;
 * an unknown name is a 400) and its filters, checked against them and the rows' keys.
 */
function answerMetrics(scope: ReportScope, params: DataParams, plan: Plan) {
  const catalogue = catalogueOf(scope);
  const unknown = (params.metrics ?? []).filter((name) => !catalogue.has(name));
  if (unknown.length) throw bad(unknownMetrics(unknown, catalogue, plan));
  const names = [...new Set(params.metrics?.length ? params.metrics : scope.metrics)];
  const metrics = names
    .map((name) => catalogue.get(name))
    .filter(
      (metric): metric is MetricPlan => metric !== undefined && (plan.conversionMetrics || !metric.conversionDerived),
    );
  // A conversion-derived metric the plan does not give is named as such when a filter asks for it.
  const withheld = new Set(
    plan.conversionMetrics ? [] : [...catalogue.values()].filter((m) => m.conversionDerived).map((m) => m.name),
  );
  const known = new Set(catalogue.keys());
  const keys = DIMENSION_KEYS[params.groupBy];
  const filters = planFilters(params.filter ?? [], keys, metrics, { known, withheld }, params.interval);
  const filtered = filters.flatMap((filter) => (filter.on === 'metric' ? [filter.metric] : []));
  return { metrics, filters, declared: declaredUsed([...metrics, ...filtered], catalogue) };
}

/** The answer's plan and ETag (docs/decisions.md §6); a request it cannot answer is a 400. */
function describe(scope: ReportScope, params: DataParams, plan: Plan, format: string): Omit<PreparedData, 'resume'> {
  const grouping = params.groupBy;
  if (!scope.groupings.includes(grouping)) {
    throw bad(`groupBy=${grouping} is not one this report can answer; it can answer ${scope.groupings.join(', ')}.`);
  }
  if (scope.kind !== 'months') {
    for (const name of ['dateFrom', 'dateTo'] as const)
      if (!params[name]) throw bad(`${name} is required (YYYY-MM-DD).`);
  }
  if (params.segmentIds && scope.kind !== 'segment') throw bad('segmentIds applies to segment reports only.');
  if (params.nameFilter !== undefined && UNNAMED.includes(grouping))
    throw bad(`nameFilter does not apply to groupBy=${grouping}, whose rows have no name.`);

  const { metrics, filters, declared } = answerMetrics(scope, params, plan);

  if (params.sort !== undefined) {
    if (!SORTABLE.includes(grouping))
      throw bad(`sort applies to groupBy campaign, video or creative, not ${grouping}.`);
    if (!metrics.some((metric) => metric.name === params.sort)) {
      throw bad(`sort must name one of the metrics returned: ${metrics.map((m) => m.name).join(', ')}.`);
    }
  }

  const accounts = accountsInScope(scope, params.adAccountIds);
  if (accounts.length > 0 && accounts.every((account) => account.status !== 'ok')) {
    throw new ApiError(
      'data-source-unavailable',
      'Every ad account in scope has a broken platform connection; reconnect it, then retry.',
    );
  }
  const segments = params.segmentIds ? scope.segments.filter((s) => params.segmentIds!.includes(s.id)) : scope.segments;
  const campaignIds = scope.kind === 'segment' ? [...new Set(segments.flatMap((s) => s.campaigns))] : null;
  const freshness = accounts.reduce<string | null>(
    (newest, a) => (a.fetchedAt && (!newest || a.fetchedAt > newest) ? a.fetchedAt : newest),
    null,
  );

  const prepared = {
    scope,
    params,
    grouping,
    keys: params.interval ? [params.interval, ...DIMENSION_KEYS[grouping]] : DIMENSION_KEYS[grouping],
    metrics,
    declared,
    filters,
    compared: params.compareFrom !== undefined,
    summary: params.summary,
    accountIds: accounts.map((a) => a.id).sort(),
    oneCurrency: accounts.every((a) => a.currency === scope.currency),
    campaignIds,
    segmentIds: segments.map((s) => s.id),
    freshness,
    lastModified: freshness ? new Date(freshness).toUTCString() : null,
  };
  // Everything the answer depends on, so a 304 needs no fact query (docs/decisions.md §6).
  const etag = weakEtag([
    format,
    scope.id,
    scope.version,
    scope.currency,
    freshness,
    accounts.map((a) => a.writes),
    grouping,
    params.interval ?? null,
    params.changedSince ?? null,
    metrics.map((m) => [m.name, m.formula ?? null]),
    params.dateFrom ?? null,
    params.dateTo ?? null,
    prepared.accountIds,
    prepared.segmentIds,
    // A segment report's campaigns, which a hand-written change can move without moving the report's version.
    campaignIds && [...campaignIds].sort(),
    params.sort ?? null,
    params.sortDesc,
    params.nameFilter ?? null,
    filters.map((filter) => filter.text),
    params.summary,
    params.compareFrom ?? null,
    params.compareTo ?? null,
  ]);
  return { ...prepared, etag };
}

/** RFC 9110 §13.1.2: If-None-Match matches with the weak comparison, or on "*". */
export function notModified(request: IncomingRequest, etag: string): boolean {
  return etagMatches(request.headers.get('if-none-match'), etag);
}

/** Whether an If-None-Match header's value matches etag (RFC 9110 §13.1.2). */
export function etagMatches(header: string | null | undefined, etag: string): boolean {
  if (!header) return false;
  if (header === etag || header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === opaque);
}
