// GET /v1/reports/{id}/data: the report's numbers (spec §2.5, §4.4, §4.5).
import type { Context } from '../context.ts';
import type { Sql } from '../database.ts';
import { notModified, prepareData, type PreparedData } from '../reportData/prepare.ts';
import { dataRows, dayRange, jsonRows } from '../reportData/rows.ts';
import { json, jsonText, respond } from '../respond.ts';

/** Headers every answer about this data carries, 304 included. */
export function dataHeaders(data: PreparedData): Record<string, string> {
  const headers: Record<string, string> = { etag: data.etag, 'cache-control': 'private, no-cache', vary: 'Authorization' };
  if (data.freshness) headers['last-modified'] = new Date(data.freshness).toUTCString();
  return headers;
}

export function reportData(sql: Sql, clock: () => number) {
  return async function getReportData(ctx: Context): Promise<Response> {
    const data = await prepareData(sql, ctx, ctx.plan!, 'json');
    if (notModified(ctx.request, data.etag)) return respond(null, { status: 304, headers: dataHeaders(data) });
    const range = await dayRange(sql, ctx, data, clock());
    const head = {
      reportId: data.scope.id,
      groupBy: data.grouping,
      currency: data.scope.currency,
      dateFrom: range.from,
      dateTo: range.to,
      metrics: data.metrics.map((m) => m.name),
      dataFreshness: data.freshness ? new Date(data.freshness).toISOString() : null,
    };
    const rendered = await jsonRows(sql, ctx, data, range);
    if (rendered) return jsonText(withRows(head, rendered), { headers: dataHeaders(data) });
    return json({ ...head, rows: await dataRows(sql, ctx, data, range) }, { headers: dataHeaders(data) });
  };
}

const encoder = new TextEncoder();

/** head's JSON with a last member, rows, whose elements are already JSON bytes. */
function withRows(head: Record<string, unknown>, rows: Uint8Array): Uint8Array<ArrayBuffer> {
  const before = encoder.encode(`${JSON.stringify(head).slice(0, -1)},"rows":[`);
  const body = new Uint8Array(before.length + rows.length + 2);
  body.set(before);
  body.set(rows, before.length);
  body.set(CLOSE, before.length + rows.length);
  return body;
}

const CLOSE = encoder.encode(']}');
