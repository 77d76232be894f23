// GET /v1/reports/{id}/data: the report's numbers (spec §2.5, §4.4, §4.5).
import { readSql, type Context } from '../http/context.ts';
import type { HeavyLane } from '../billing/heavyLane.ts';
import { notModified, prepareData, type PreparedData } from '../report/prepare.ts';
import { dayRange, jsonRows } from '../report/rows.ts';
import { JSON_TYPE, jsonText, respond } from '../http/respond.ts';
import { chunkStream, streamedResponse } from '../http/streamed.ts';

/** Headers every answer about this data carries, 304 included. */
export function dataHeaders(data: PreparedData): Record<string, string> {
  const headers: Record<string, string> = { etag: data.etag, 'cache-control': 'private, no-cache', vary: 'Authorization' };
  if (data.freshness) headers['last-modified'] = new Date(data.freshness).toUTCString();
  return headers;
}

export function reportData(clock: () => number, lane: HeavyLane) {
  return async function getReportData(ctx: Context): Promise<Response> {
    const data = await prepareData(readSql(ctx), ctx, ctx.plan!, 'json');
    if (notModified(ctx.request, data.etag)) return respond(null, { status: 304, headers: dataHeaders(data) });
    const lent = await lane.connection(ctx);
    const range = await dayRange(lent, ctx, data, clock());
    const head = {
      reportId: data.scope.id,
      groupBy: data.grouping,
      currency: data.scope.currency,
      dateFrom: range.from,
      dateTo: range.to,
      metrics: data.metrics.map((m) => m.name),
      dataFreshness: data.freshness ? new Date(data.freshness).toISOString() : null,
    };
    return renderedAnswer(ctx, head, jsonRows(lent, ctx, data, range), dataHeaders(data));
  };
}

const encoder = new TextEncoder();

/**
 * head's JSON with a last member, rows, whose elements come as JSON bytes in batches. An answer of one batch is sent
 * whole, so a failure is still a problem document; a longer one is streamed as it is read, and a failure past the
 * first batch cuts the transfer (streamed.ts).
 */
async function renderedAnswer(ctx: Context, head: Record<string, unknown>, batches: AsyncGenerator<Uint8Array>, headers: Record<string, string>) {
  const before = encoder.encode(`${JSON.stringify(head).slice(0, -1)},"rows":[`);
  const first = await batches.next();
  const second = first.done ? first : await batches.next();
  if (second.done) return jsonText(concat([before, first.done ? EMPTY : first.value, CLOSE]), { headers });
  return streamedResponse(ctx, chunkStream(batches, [before, first.value as Uint8Array, second.value], CLOSE), {
    headers: { 'content-type': JSON_TYPE, ...headers },
  });
}

function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const body = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    body.set(part, at);
    at += part.length;
  }
  return body;
}

const EMPTY = new Uint8Array(0);

const CLOSE = encoder.encode(']}');
