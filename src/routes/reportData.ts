// GET /v1/reports/{id}/data: the report's numbers (docs/decisions.md §6).
import type { Answer } from '../http/answer.ts';
import type { Context } from '../http/context.ts';
import { respond } from '../http/respond.ts';
import type { HeavyLane } from '../report/lane.ts';
import { jsonAnswer } from '../report/formats/json.ts';
import { RESUME_HEADER } from '../report/changes.ts';
import { dayRange } from '../report/query.ts';
import { notModified, prepareData, type PreparedData } from '../report/prepare.ts';
import type { ReportCall } from '../report/request.ts';

/** Headers every answer about this data carries, 304 included. */
export function dataHeaders(data: PreparedData): Record<string, string> {
  const headers: Record<string, string> = {
    etag: data.etag,
    'cache-control': 'private, no-cache',
    vary: 'Authorization',
  };
  if (data.lastModified) headers['last-modified'] = data.lastModified;
  if (data.resume) headers[RESUME_HEADER] = data.resume;
  return headers;
}

export function reportData(clock: () => number, lane: HeavyLane) {
  return async function getReportData(ctx: Context, call: ReportCall): Promise<Answer> {
    const data = await prepareData(ctx, call, 'json');
    if (notModified(ctx.request, data.etag)) return respond(null, { status: 304, headers: dataHeaders(data) });
    const lent = await lane.connection(ctx, call);
    const range = await dayRange(lent, ctx, data, clock());
    const head = {
      reportId: data.scope.id,
      groupBy: data.grouping,
      currency: data.scope.currency,
      dateFrom: range.from,
      dateTo: range.to,
      ...(data.compared && { compareFrom: data.params.compareFrom, compareTo: data.params.compareTo }),
      metrics: data.metrics.map((m) => m.name),
      dataFreshness: data.freshness ? new Date(data.freshness).toISOString() : null,
    };
    return jsonAnswer(ctx, lent, data, range, head, dataHeaders(data));
  };
}
