// The data endpoint's JSON answer (docs/decisions.md §6): the head, then the rows, streamed in batches; an answer of
// one batch is sent whole, so a failure is still a problem document.
import type { Context } from '../../http/context.ts';
import { JSON_TYPE, jsonText } from '../../http/respond.ts';
import { chunkStream, streamedResponse } from '../../http/streamed.ts';
import type { Lent } from '../../store/exclusive.ts';
import { emptySummary, type DayRange } from '../query.ts';
import { comparedSums, rowMetrics } from '../metrics.ts';
import type { PreparedData } from '../prepare.ts';
import { copiedRows } from './copyOut.ts';
import { CopyJson } from './copyJson.ts';

const encoder = new TextEncoder();

/**
 * Rows of a data answer written at a time, each piece handed on as soon as it is written: one held longer outlives
 * V8's young generation, and only a full collection of the heap frees its buffer (BENCHMARKS.md, "JSON in pieces").
 */
const JSON_PIECE_ROWS = 500;
/** An answer of up to this many rows is sent whole, so a failure is still a problem document. */
const JSON_WHOLE_ROWS = 1_000;

/**
 * The data endpoint's rows as the JSON text of the `rows` array's elements, joined with commas, and with a summary
 * `],"summary":{…}` after them, in pieces of JSON_PIECE_ROWS rows, written from the binary COPY of the rows
 * (copyJson.ts) as the CSV export's are. Against rows rendered by PostgreSQL, the COPY costs PostgreSQL a fifth less
 * and the server no more (BENCHMARKS.md, "JSON from a binary COPY").
 */
function jsonRows(lent: Lent, ctx: Context, data: PreparedData, range: DayRange, written: CopyJson) {
  return copiedRows(lent, ctx, data, range, written, JSON_PIECE_ROWS) ?? noRows(data);
}

/** An answer with no ad account to read: no rows, and a summary's zeros (docs/decisions.md §6). */
async function* noRows(data: PreparedData): AsyncGenerator<Uint8Array> {
  if (data.summary) yield encoder.encode(`${SUMMARY}${JSON.stringify(summaryOfNothing(data))}`);
}

const SUMMARY = '],"summary":';

/** The summary of an answer with no rows (no ad account in scope): zero sums, ratios null (docs/decisions.md §6). */
function summaryOfNothing(data: PreparedData) {
  const none = emptySummary(data);
  const metrics = rowMetrics(none, data.metrics);
  return data.compared
    ? { metrics, compare: { metrics: rowMetrics(comparedSums(none, data.declared), data.metrics) } }
    : { metrics };
}

/**
 * head's JSON with a last member, rows, whose elements come as JSON bytes in pieces. An answer of up to
 * JSON_WHOLE_ROWS rows is sent whole, so a failure is still a problem document; a longer one is streamed as it is
 * read, and a failure past those first rows cuts the transfer (streamed.ts).
 */
export async function jsonAnswer(
  ctx: Context,
  lent: Lent,
  data: PreparedData,
  range: DayRange,
  head: Record<string, unknown>,
  headers: Record<string, string>,
) {
  const written = new CopyJson(data);
  const rows = jsonRows(lent, ctx, data, range, written);
  const parts: Uint8Array[] = [encoder.encode(`${JSON.stringify(head).slice(0, -1)},"rows":[`)];
  let next = await rows.next();
  for (; !next.done && written.rows <= JSON_WHOLE_ROWS; next = await rows.next()) parts.push(next.value);
  // With a summary, the rows' closing bracket came before it.
  const close = data.summary ? CLOSE_SUMMARY : CLOSE;
  if (next.done) return jsonText(concat([...parts, close]), { headers });
  return streamedResponse(ctx, chunkStream(rows, [...parts, next.value], close), {
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

const CLOSE = encoder.encode(']}');
const CLOSE_SUMMARY = encoder.encode('}');
