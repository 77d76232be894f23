// One PGlite session serves every connection of the embedded database's socket; this keeps their statements apart.
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** A client message as pglite-socket queues it: one protocol message of one connection ("handler"). */
type Item = {
  handlerId: number;
  message: Uint8Array;
  resolve(bytes: number): void;
  reject(error: unknown): void;
  onData(data: Uint8Array): void;
};

type Session = {
  isInTransaction(): boolean;
  runExclusive<T>(fn: () => Promise<T>): Promise<T>;
  execProtocolRawStream(message: Uint8Array, options: { onRawData(data: Uint8Array): void }): Promise<void>;
};

/** pglite-socket's QueryQueueManager (0.2.x): its fields are private in the types, not at run time. */
type QueryQueue = {
  queue: Item[];
  processing: boolean;
  lastHandlerId: number | null;
  db: Session;
  processQueue(): Promise<void>;
  clearQueueForHandler(handlerId: number): void;
};

const code = (c: string) => c.charCodeAt(0);
/** Parse, Bind, Describe, Execute, Flush, Close: an extended-protocol exchange that runs until its Sync. */
const OPENS = new Set(['P', 'B', 'D', 'E', 'H', 'C'].map(code));
/** Sync, a simple Query, Terminate: the exchange is over (a transaction still holds the session, as before). */
const ENDS = new Set(['S', 'Q', 'X'].map(code));

/**
 * pglite-socket queues each protocol message on its own and keeps a connection's messages together only inside
 * an explicit transaction. Every connection shares the one session's unnamed statement and unnamed portal, so a
 * Parse or Bind of one request could land between another's Bind and Execute: that request then failed
 * ("unnamed prepared statement does not exist") or, worse, read the rows of the other's query. Here a connection
 * that has begun an exchange keeps the session until its Sync; the others' messages wait their turn. A cursor (an
 * export) holds it between its batches the same way, as on PostgreSQL it holds its own backend.
 *
 * The queue also recovers from a message PGlite throws on: the library's own loop stopped for good there.
 */
export function keepExchangesWhole(server: PGLiteSocketServer): void {
  const queue = (server as unknown as { queryQueue: QueryQueue }).queryQueue;
  let owner: number | null = null;
  queue.processQueue = async function processQueue() {
    if (queue.processing) return;
    queue.processing = true;
    try {
      while (queue.queue.length > 0) {
        const holder = owner ?? (queue.db.isInTransaction() ? queue.lastHandlerId : null);
        const at = holder === null ? 0 : queue.queue.findIndex((item) => item.handlerId === holder);
        // The holder's next message has not come yet: the others wait, and its enqueue starts this loop again.
        if (at === -1) break;
        const [item] = queue.queue.splice(at, 1);
        let bytes = 0;
        try {
          await queue.db.runExclusive(() =>
            queue.db.execProtocolRawStream(item.message, {
              onRawData(data) {
                bytes += data.length;
                item.onData(data);
              },
            }),
          );
        } catch (error) {
          // pglite-socket closes this connection on the error; its exchange will not finish.
          if (owner === item.handlerId) owner = null;
          item.reject(error);
          continue;
        }
        queue.lastHandlerId = item.handlerId;
        const type = item.message[0];
        if (OPENS.has(type)) owner = item.handlerId;
        else if (ENDS.has(type)) owner = null;
        item.resolve(bytes);
      }
    } finally {
      queue.processing = false;
    }
  };
  const clear = queue.clearQueueForHandler.bind(queue);
  queue.clearQueueForHandler = (handlerId) => {
    clear(handlerId);
    if (owner !== handlerId) return;
    // A connection gone mid-exchange gives the session back.
    owner = null;
    void queue.processQueue();
  };
}
