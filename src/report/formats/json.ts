// The data endpoint's JSON answer (docs/decisions.md §6): the head, then the rows as PostgreSQL renders them
// (rendered.ts), streamed in batches; an answer of one batch is sent whole, so a failure is still a problem document.
import type { Context } from '../../http/context.ts';
import { JSON_TYPE, jsonText } from '../../http/respond.ts';
import { chunkStream, streamedResponse } from '../../http/streamed.ts';
import type { Lent } from '../../store/exclusive.ts';
import { batches, joined, renderedRows, type DayRange } from '../query.ts';
import type { PreparedData } from '../request.ts';

/** Rows of a data answer read from the cursor at a time, so a long answer holds two batches in memory at most. */
const JSON_BATCH_ROWS = 5_000;

/**
 * The data endpoint's rows as the JSON text of the `rows` array's elements, each row's object rendered by PostgreSQL
 * (rendered.ts), in batches joined with commas (each batch after the first starts with one): row objects, their
 * garbage and JSON.stringify were half the server's CPU of a large answer (BENCHMARKS.md).
 */
function jsonRows(lent: Lent, ctx: Context, data: PreparedData, range: DayRange): AsyncGenerator<Uint8Array> {
  if (data.accountIds.length === 0) return (async function* () {})();
  const pending = renderedRows(lent.sql, data, range, 'json');
  return (async function* () {
    let first = true;
    for await (const batch of batches<Uint8Array[]>(ctx, lent, pending, JSON_BATCH_ROWS)) {
      yield joined(batch, 0x2c, !first);
      first = false;
    }
  })();
}

const encoder = new TextEncoder();

/**
 * head's JSON with a last member, rows, whose elements come as JSON bytes in batches. An answer of one batch is sent
 * whole, so a failure is still a problem document; a longer one is streamed as it is read, and a failure past the
 * first batch cuts the transfer (streamed.ts).
 */
export async function jsonAnswer(
  ctx: Context,
  lent: Lent,
  data: PreparedData,
  range: DayRange,
  head: Record<string, unknown>,
  headers: Record<string, string>,
) {
  const rows = jsonRows(lent, ctx, data, range);
  const before = encoder.encode(`${JSON.stringify(head).slice(0, -1)},"rows":[`);
  const first = await rows.next();
  const second = first.done ? first : await rows.next();
  if (second.done) return jsonText(concat([before, first.done ? EMPTY : first.value, CLOSE]), { headers });
  return streamedResponse(ctx, chunkStream(rows, [before, first.value as Uint8Array, second.value], CLOSE), {
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
