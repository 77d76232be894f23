// What the app reads of a request, whichever runtime's adapter made it, and the answer an adapter may write itself.

/**
 * What the app reads of a request. A Fetch Request has all of it; the Node adapter builds just this for a request
 * without a body, which costs a fraction of a whole Request.
 */
export type IncomingRequest = {
  readonly method: string;
  readonly url: string;
  readonly headers: Pick<Headers, 'get'>;
  readonly body: ReadableStream<Uint8Array> | null;
  /**
   * Breaks the connection at once, where the adapter can: a download the deadline ends is cut even while the client
   * has stopped reading and nothing is being written.
   */
  readonly cut?: () => void;
};

/**
 * A response written without the Fetch machinery: for the few requests an adapter can answer directly. Its headers
 * are a flat list of names and values, content-length included, as node:http's writeHead takes them.
 */
export type DirectAnswer = { status: number; headers: readonly string[]; body: string };
