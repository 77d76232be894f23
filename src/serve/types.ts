// What every runtime adapter offers the entry file.
import type { Answer } from '../http/answer.ts';
import type { DirectAnswer, IncomingRequest } from '../http/incoming.ts';

export type { DirectAnswer, IncomingRequest };

export type Listening = {
  url: string;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
};

/** The Fetch handler, and the pipeline's own answer to the same request (http/answer.ts) for Node to write. */
export type Handler = ((request: IncomingRequest) => Response | Promise<Response>) & {
  answer: (request: IncomingRequest) => Answer | Promise<Answer>;
};

/**
 * An answer written without the Fetch handler (GET /v1/health while its check is fresh), or undefined whenever the
 * handler must answer; header(name) reads a request header (lower-case name).
 */
export type Direct = (
  method: string,
  url: string,
  header: (name: string) => string | undefined,
) => DirectAnswer | undefined;

/**
 * What HTTP itself could not parse: the URL or the headers too large, a method it does not know, anything else broken.
 */
export type Malformed = 'url-too-long' | 'headers-too-large' | 'unknown-method' | 'broken';

/**
 * The answer to a request the HTTP parser refused, from whatever of its first line could be read; none yet at start.
 */
export type Refuse = (why: Malformed, method: string, path: string) => DirectAnswer | undefined;

/** A certificate chain and its private key, PEM: the server speaks HTTPS only. */
export type Tls = { cert: string; key: string };

/** When connections end (docs/operations.md, "Connections"); maxConnections unset: from the open-file limit. */
export type ConnectionSettings = { headersTimeoutMs: number; keepAliveTimeoutMs: number; maxConnections?: number };

export type Serve = (
  app: Handler,
  options: {
    port: number;
    host: string;
    direct?: Direct;
    refuse?: Refuse;
    tls?: Tls;
    connections?: ConnectionSettings;
  },
) => Promise<Listening>;
