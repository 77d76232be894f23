// A response whose body is a stream (an export, a large data answer): what it holds is given back when the body
// ends, is cancelled or fails, and at the deadline the download is cut wherever it stands (docs/decisions.md §6, §7).
import type { Answer, AnswerInit } from './answer.ts';
import type { Context } from './context.ts';
import { requestTimeout } from './deadline.ts';
import { respond } from './respond.ts';

/**
 * The deadline covers the whole download: when it passes, the body fails and the connection is cut (an incomplete
 * transfer, never a short file passed off as whole), even if the client stopped reading and nothing pulls the body.
 */
export function streamedResponse(ctx: Context, source: ReadableStream<Uint8Array>, init: AnswerInit): Answer {
  ctx.streaming = true;
  const reader = source.getReader();
  let over = false;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  const watch = stallWatch(ctx.stall?.ms ?? 0, () => {
    ctx.stall?.cut();
    cut(new Error('the download was cut: its reader took nothing'));
  });
  const end = () => {
    if (over) return;
    over = true;
    watch.stop();
    ctx.deadline.removeEventListener('abort', cut);
    ctx.done();
  };
  function cut(reason: unknown = requestTimeout()) {
    try {
      controller?.error(reason);
    } catch {}
    reader.cancel().catch(() => {});
    ctx.request.cut?.();
    end();
  }
  if (ctx.deadline.aborted) queueMicrotask(cut);
  else ctx.deadline.addEventListener('abort', () => cut(), { once: true });
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    async pull(c) {
      watch.pulled();
      try {
        const next = await reader.read();
        if (over) return;
        if (next.done) {
          c.close();
          end();
        } else {
          c.enqueue(next.value);
          watch.waiting();
        }
      } catch (error) {
        if (over) return;
        // A source that fails midway: the transfer is cut, not ended, so the client cannot take it for whole.
        c.error(error);
        ctx.request.cut?.();
        end();
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason).catch(() => {});
    },
  });
  return respond(body, init);
}

/**
 * Calls stalled once the body has waited stallMs for its reader to pull again: a download its client stopped reading
 * holds a heavy connection, which others wait for (docs/decisions.md §13). One timer a download, looked at when it
 * fires rather than set again for every chunk.
 */
function stallWatch(stallMs: number, stalled: () => void) {
  let since = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const look = () => {
    timer = undefined;
    if (since === 0) return;
    const left = since + stallMs - Date.now();
    if (left <= 0) stalled();
    else timer = setTimeout(look, left);
  };
  return {
    waiting() {
      if (stallMs <= 0) return;
      since = Date.now();
      timer ??= setTimeout(look, stallMs);
    },
    pulled() {
      since = 0;
    },
    stop() {
      since = 0;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}

/** The chunks before, then the iterator's, then after, as a stream read at the reader's pace. */
export function chunkStream(
  chunks: AsyncIterator<Uint8Array>,
  before: Uint8Array[] = [],
  after?: Uint8Array,
): ReadableStream<Uint8Array> {
  const queued = [...before];
  let finished = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const waiting = queued.shift();
      if (waiting) return controller.enqueue(waiting);
      if (finished) return controller.close();
      const next = await chunks.next();
      if (!next.done) return controller.enqueue(next.value);
      finished = true;
      if (after) controller.enqueue(after);
      else controller.close();
    },
    cancel() {
      void chunks.return?.()?.catch?.(() => {});
    },
  });
}
