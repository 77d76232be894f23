// What one request carries through the pipeline; itty-router routes it by method and url.
import type { Principal } from './caller.ts';
import type { IncomingRequest } from './incoming.ts';
import type { Trace } from './trace.ts';

const never = new AbortController().signal;

/** A request's quota charge (billing/quota); leased: spent from this process's lease, so a refund goes back into it. */
export type Charge = { window: number; cost: number; leased?: boolean };

/**
 * An http(s) URL whose path is segments of letters, digits, `-`, `_` and `~` between single slashes (no dot, no
 * percent sign, nothing URL would rewrite), with a query or none: its pathname is the text as it stands. Each
 * character can match one way only, so a long path costs a single pass. itty-router parses every request's URL
 * itself, and a second parse here was the pipeline's most expensive single call after it.
 */
const PLAIN = /^https?:\/\/[^/?#\\]*(\/(?:[\w~-]+(?:\/[\w~-]+)*\/?)?)(?:\?[^#]*)?$/;

/** A query string's parameters: a name given more than once collects its values, as itty-router reads them. */
export type Query = Record<string, string | string[] | undefined>;

const NO_QUERY: Query = Object.freeze(Object.create(null));

/** The parameters of url's query string, decoded as URLSearchParams decodes them. */
export function queryOf(url: string): Query {
  const at = url.indexOf('?');
  if (at < 0 || at === url.length - 1) return NO_QUERY;
  const query: Query = Object.create(null);
  for (const [name, value] of new URLSearchParams(url.slice(at + 1, url.indexOf('#', at) >>> 0))) {
    const had = query[name];
    query[name] = had ? ([] as string[]).concat(had, value) : value;
  }
  return query;
}

/** URL's pathname of url, parsed only when the path holds anything URL might rewrite. */
export function pathOf(url: string): string {
  return PLAIN.exec(url)?.[1] ?? new URL(url).pathname;
}

/**
 * A class, not an object literal: the literal's deadline getter built a closure and an accessor for every request.
 * The deadline's signal is made only when a route asks for it: an AbortController per request is not free.
 */
export class Context {
  /** HEAD is routed as GET; the body is dropped at the end. */
  method: string;
  /** The method as the client sent it, for the log. */
  requestMethod: string;
  url: string;
  path: string;
  request: IncomingRequest;
  trace: Trace;
  startedAt: number;
  /** Filled by itty-router. */
  params: Record<string, string> = {};
  /** The query string's parameters, read when first asked for (queryOf); itty-router sets them as it routes. */
  get query(): Query {
    return (this.parsedQuery ??= queryOf(this.url));
  }
  set query(query: Query) {
    this.parsedQuery = query;
  }
  private parsedQuery: Query | undefined = undefined;
  /**
   * The matched route's pattern, set by itty-router; here from the start, so setting it does not reshape the object.
   */
  route = '';
  /** Who was charged what, for the refund the pipeline gives a 304 or a 5xx (docs/decisions.md §4). */
  charged?: { principal: Principal; charge: Charge };
  /** Set when the answer must not cost anything though the request was charged (a 429 past the per-client limit). */
  refundCharge = false;
  /** Headers every response to this request carries (quota standing, for one). */
  headers: Record<string, string> = {};
  /** Fields for the request's log line. */
  log: { clientId?: string; cost?: number; error?: string; refusal?: string; standby?: string } = {};
  /** Report rows sent so far (data and exports), for the metrics. */
  rowsSent = 0;
  /** Makes the deadline's signal. */
  readonly signal: () => AbortSignal;
  /** Set by the heavy lane: a streamed body whose reader takes nothing for `ms` is cut, and `cut` logs it. */
  stall: { ms: number; cut(): void } | undefined = undefined;
  /** Set by a route whose body is a stream: the stream says when the answer is over (streamed.ts), not the pipeline. */
  streaming = false;
  /** What to give back once the answer is over: sent, cut or given up (a connection, a client's slot). */
  private cleanups: (() => void)[] | undefined = undefined;
  private over = false;

  constructor(request: IncomingRequest, trace: Trace, startedAt: number, signal: () => AbortSignal) {
    this.method = request.method === 'HEAD' ? 'GET' : request.method;
    this.requestMethod = request.method;
    this.url = request.url;
    this.path = pathOf(request.url);
    this.request = request;
    this.trace = trace;
    this.startedAt = startedAt;
    this.signal = signal;
  }

  /** Aborts when the request's deadline passes. */
  get deadline(): AbortSignal {
    return this.signal();
  }

  /** Runs fn once the answer is over, or at once if it is: a route the deadline answered for may still be running. */
  onDone(fn: () => void): void {
    if (!this.over) (this.cleanups ??= []).push(fn);
    else {
      try {
        fn();
      } catch {}
    }
  }

  /** The answer is over: everything held for it is given back, latest first, once. */
  done(): void {
    this.over = true;
    const cleanups = this.cleanups;
    this.cleanups = undefined;
    if (!cleanups) return;
    for (let i = cleanups.length - 1; i >= 0; i--) {
      try {
        cleanups[i]();
      } catch {}
    }
  }
}

export function createContext(
  request: IncomingRequest,
  trace: Trace,
  startedAt: number,
  deadline: () => AbortSignal = () => never,
): Context {
  return new Context(request, trace, startedAt, deadline);
}
