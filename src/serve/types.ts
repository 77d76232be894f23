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
};

export type Handler = (request: IncomingRequest) => Promise<Response>;

/**
 * A response written without the Fetch machinery: for the few requests an adapter can answer directly. Its headers
 * are a flat list of names and values, content-length included, as node:http's writeHead takes them.
 */
export type DirectAnswer = { status: number; headers: readonly string[]; body: string };

/** Undefined whenever the Fetch handler must answer. */
export type Direct = (method: string, url: string, traceparent: string | undefined) => DirectAnswer | undefined;

export type Serve = (app: Handler, options: { port: number; host: string; direct?: Direct }) => Promise<Listening>;
