// What every runtime adapter offers the entry file.

export type Listening = {
  url: string;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
};

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

export type Handler = (request: IncomingRequest) => Promise<Response>;

/**
 * A response written without the Fetch machinery: for the few requests an adapter can answer directly. Its headers
 * are a flat list of names and values, content-length included, as node:http's writeHead takes them.
 */
export type DirectAnswer = { status: number; headers: readonly string[]; body: string };

/** Undefined whenever the Fetch handler must answer. */
export type Direct = (method: string, url: string, traceparent: string | undefined) => DirectAnswer | undefined;

/** What HTTP itself could not parse: the URL or the headers too large, a method it does not know, anything else broken. */
export type Malformed = 'url-too-long' | 'headers-too-large' | 'unknown-method' | 'broken';

/** The answer to a request the HTTP parser refused, from whatever of its first line could be read; none yet at start. */
export type Refuse = (why: Malformed, method: string, path: string) => DirectAnswer | undefined;

/** A certificate chain and its private key, PEM: the server speaks HTTPS only. */
export type Tls = { cert: string; key: string };

export type Serve = (app: Handler, options: { port: number; host: string; direct?: Direct; refuse?: Refuse; tls?: Tls }) => Promise<Listening>;
