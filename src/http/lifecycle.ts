// One request from arrival to log line: its context, its deadline, the route's answer or its problem document, the
// refund a 304 or a 5xx earns (docs/decisions.md §4), the headers every answer carries, HEAD, and the log line.
import { createContext, type Context } from './context.ts';
import { requestTimeout } from './deadline.ts';
import type { IncomingRequest } from './incoming.ts';
import { ApiError, methodNotAllowed, problemResponse } from './problem.ts';
import type { RequestLogger } from './requestLog.ts';
import { respond } from './respond.ts';
import { traceFrom, type Trace } from './trace.ts';

type CycleDeps = {
  /** The route's answer; undefined if none answered. */
  route: (ctx: Context) => Promise<Response | undefined>;
  refund: (ctx: Context) => Promise<void>;
  logRequest: RequestLogger;
  clock: () => number;
  deadlineMs: number;
  problemsUrl: string;
  /** An answer of its own form for an error on a path that has one (the token endpoint's RFC 6749 errors). */
  failure?: (error: unknown, ctx: Context) => Response | undefined;
  /** Report rows sent by a finished answer, for the metrics. */
  rowsSent?: (ctx: Context, rows: number) => void;
};

export function requestCycle(deps: CycleDeps): (request: IncomingRequest) => Promise<Response> {
  const { clock } = deps;

  function toProblem(error: unknown, ctx: Context): Response {
    const own = deps.failure?.(error, ctx);
    if (own) return own;
    let apiError: ApiError;
    if (error instanceof ApiError) {
      apiError = error;
      ctx.log.refusal = refusalOf(apiError, ctx);
    } else {
      // The one place an unknown error becomes internal-error; the log line keeps what the client never sees.
      ctx.log.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
      apiError = new ApiError('internal-error');
    }
    return problemResponse(apiError, { problemsUrl: deps.problemsUrl, instance: ctx.path, traceId: ctx.trace.traceId });
  }

  /** The route's answer or, at the deadline, request-timeout: one promise, not a race of two. */
  function answer(ctx: Context, deadline: () => AbortController, timer: { id?: ReturnType<typeof setTimeout> }) {
    return new Promise<Response | undefined>((resolve, reject) => {
      timer.id = setTimeout(() => (deadline().abort(), reject(requestTimeout())), deps.deadlineMs);
      deps.route(ctx).then(resolve, reject);
    });
  }

  return async function handle(request: IncomingRequest): Promise<Response> {
    const startedAt = clock();
    let trace: Trace | undefined;
    let ctx: Context | undefined;
    let response: Response;
    let controller: AbortController | undefined;
    const deadline = () => (controller ??= new AbortController());
    const timer: { id?: ReturnType<typeof setTimeout> } = {};
    try {
      trace = traceFrom(request.headers.get('traceparent'));
      const routed = (ctx = createContext(request, trace, startedAt, () => deadline().signal));
      onlyGetAndHead(routed);
      response = (await answer(routed, deadline, timer)) ?? toProblem(new Error('no route answered'), routed);
    } catch (error) {
      trace ??= traceFrom(null);
      ctx ??= fallbackContext(request, trace, startedAt);
      // A streamed answer that failed before it was returned has nothing left to stream.
      ctx.streaming = false;
      response = toProblem(error, ctx);
    }
    const done = ctx;
    if (deps.rowsSent) done.onDone(() => done.rowsSent > 0 && deps.rowsSent!(done, done.rowsSent));
    // A streamed body keeps the deadline until it ends (streamed.ts); any other answer is over now.
    if (ctx.streaming) ctx.onDone(() => clearTimeout(timer.id));
    else clearTimeout(timer.id);
    // docs/decisions.md §4: a 304 refunds its charge, and so does every 5xx (the service's failure); docs/decisions.md
    // §13: so does a 429 past the per-client limit of heavy requests. The answer's RateLimit shows what is left.
    if (response.status === 304 || response.status >= 500 || ctx.refundCharge) await deps.refund(ctx);
    response = finish(response, ctx, ctx.requestMethod === 'HEAD');
    if (!ctx.streaming) ctx.done();
    deps.logRequest(ctx.requestMethod, ctx.path, response.status, startedAt, clock() - startedAt, ctx.trace, ctx.log);
    return response;
  };
}

/**
 * docs/decisions.md §8: only GET and HEAD exist under /v1. Checked before routing (HEAD is routed as GET), so no
 * route's
 * match pays for it.
 */
function onlyGetAndHead(ctx: Context): void {
  if (ctx.method !== 'GET' && (ctx.path === '/v1' || ctx.path.startsWith('/v1/'))) {
    throw methodNotAllowed(ctx.requestMethod);
  }
}

/** Why quota, plan or fair use refused a request, as the metrics name it; undefined for any other problem. */
function refusalOf(error: ApiError, ctx: Context): string | undefined {
  switch (error.type) {
    case 'rate-limit-exceeded':
      return ctx.refundCharge ? 'concurrent-requests' : 'hourly-budget';
    case 'subscription-locked':
    case 'plan-feature-required':
    case 'billing-unavailable':
      return error.type;
    default:
      return undefined;
  }
}

/** Enough of a context to answer and log a request whose own fields could not be read. */
function fallbackContext(request: IncomingRequest, trace: Trace, startedAt: number): Context {
  let path = '/';
  try {
    path = new URL(request.url).pathname;
  } catch {}
  const unreadable = { method: 'GET', url: 'http://invalid/', headers: new Headers(), body: null };
  const ctx = createContext(unreadable, trace, startedAt);
  ctx.path = path;
  ctx.requestMethod = 'UNKNOWN';
  return ctx;
}

/** Adds the per-request headers; HEAD keeps the headers and drops the body. */
function finish(response: Response, ctx: Context, head: boolean): Response {
  const headers = response.headers;
  headers.set('traceparent', ctx.trace.traceparent);
  for (const name in ctx.headers) headers.set(name, ctx.headers[name]);
  if (!head) return response;
  response.body?.cancel().catch(() => {});
  return respond(null, { status: response.status, headers });
}
