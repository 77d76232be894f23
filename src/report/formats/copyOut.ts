// Reading a postgres.js COPY ... TO STDOUT stream chunk by chunk: an answer's rows as a binary COPY, written in a
// format by its writer (copyRows.ts).
import type { Context } from '../../http/context.ts';
import { requestTimeout } from '../../http/deadline.ts';
import { nextTurn } from '../../http/turn.ts';
import type { Lent } from '../../store/exclusive.ts';
import { boundSetting, inlined } from '../../store/queries.ts';
import type { PreparedData } from '../prepare.ts';
import { answerStatement, type DayRange } from '../query.ts';
import type { CopyRows } from './copyRows.ts';
import { copyStatement } from './copyStatement.ts';

/** The parts of postgres.js's COPY stream (a Node Readable) used here. */
export type CopyOut = {
  read(): Uint8Array | null;
  readonly readableEnded: boolean;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  removeListener(event: string, listener: (...args: unknown[]) => void): unknown;
};

/** The COPY's next chunk, or null at its end; rejects with the query's error. */
export function nextChunk(stream: CopyOut): Promise<Uint8Array | null> {
  const chunk = stream.read();
  if (chunk !== null) return Promise.resolve(chunk);
  if (stream.readableEnded) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const settle = (error?: unknown) => {
      stream.removeListener('readable', onReadable);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', settle);
      stream.removeListener('close', onClose);
      if (error !== undefined) reject(error);
    };
    const onReadable = () => (settle(), resolve(nextChunk(stream)));
    const onEnd = () => (settle(), resolve(null));
    const onClose = () => (
      settle(), stream.readableEnded ? resolve(null) : reject(new Error('the COPY stream closed early'))
    );
    stream.on('readable', onReadable);
    stream.on('end', onEnd);
    stream.on('error', settle);
    stream.on('close', onClose);
  });
}

/**
 * An answer's rows (query.ts) run as a binary COPY (copyStatement.ts) and written by `written`, in pieces of at least
 * `least` rows but the last; null when there is no ad account to read. COPY takes no parameters: ours are written
 * into its text, and a client's values (its filters') are bound to settings the text reads (Lent.bind).
 */
export function copiedRows(
  lent: Lent,
  ctx: Context,
  data: PreparedData,
  range: DayRange,
  written: CopyRows,
  least = 0,
): AsyncGenerator<Uint8Array> | null {
  if (data.accountIds.length === 0) return null;
  const { file, text, params, client } = answerStatement(data, range, data.oneCurrency);
  const statement = copyStatement(inlined(text, params, client), data, file);
  const bound = client.filter((name) => params[name] !== null);
  return (async function* () {
    lent.busy();
    if (bound.length)
      await lent.bind(
        bound.map(boundSetting),
        bound.map((name) => String(params[name])),
      );
    const stream = (await lent.sql.unsafe(statement).readable()) as unknown as CopyOut;
    // The stream fails if its connection does (a backend killed, the connection abandoned), whether or not anyone is
    // reading it just then: errors reach the reader through nextChunk, and an unheard one must not end the process.
    stream.on('error', () => {});
    let from = 0;
    for (let chunk = await nextChunk(stream); chunk !== null; chunk = await nextChunk(stream)) {
      // A COPY the client is slow to read waits on its socket: the deadline is checked here too.
      if (ctx.deadline.aborted) throw requestTimeout();
      written.push(chunk);
      ctx.rowsSent = written.rows;
      if (written.rows > from && written.rows - from >= least) {
        yield written.take();
        from = written.rows;
      }
      await nextTurn();
    }
    if (!written.done) throw new Error('the COPY ended before its last row');
    if (written.rows > from) yield written.take();
    // postgres.js pauses the connection's socket when a COPY's stream is full and resumes it only when the stream is
    // read again: if the last rows filled it, the socket would stay paused and the next query never hear its answer
    // (porsager/postgres#499, #1016). The COPY is over, so the socket is resumed and the connection is idle again.
    lent.resume();
    lent.finished();
  })();
}
