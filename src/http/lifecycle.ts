// One request from arrival to log line: its context, its deadline, the route's answer or its problem document, the
// refund a 304 or a 5xx earns (docs/decisions.md §4), the headers every answer carries, HEAD, and the log line.
import type { Answer } from './answer.ts';
import { createContext, type Context } from './context.ts';
import { requestTimeout } from './deadline.ts';
import type { IncomingRequest } from './incoming.ts';
import { ApiError, methodNotAllowed, problemResponse } from './problem.ts';
import type { RequestLogger } from './requestLog.ts';
import { respond } from './respond.ts';
import { traceFrom, type Trace } from './trace.ts';

type CycleDeps = {
  /** The route's answer, at once or later; undefined if none answered. */
  route: (ctx: Context) => Answer | undefined | Promise<Answer | undefined>;
  refund: (ctx: Context) => void | Promise<void>;
  logRequest: RequestLogger;
  clock: () => number;
  deadlineMs: number;
  problemsUrl: string;
  /** An answer of its own form for an error on a path that has one (the token endpoint's RFC 6749 errors). */
  failure?: (error: unknown, ctx: Context) => Answer | undefined;
  /** Report rows sent by a finished answer, for the metrics. */
  rowsSent?: (ctx: Context, rows: number) => void;
};

/** What a request comes to: at once when every step answered from memory, else once the last one has. */
export type Cycle = (request: IncomingRequest) => Answer | Promise<Answer>;

export function requestCycle(deps: CycleDeps): Cycle {
  const { clock } = deps;

  function toProblem(error: unknown, ctx: Context): Answer {
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

  /**
   * The route's answer. One that waits is raced with the request's deadline (request-timeout, its work aborted); one
   * that answers from memory needs no deadline, and the request is over in the same turn.
   */
  function answered(ctx: Context, deadline: Deadline): Answer | undefined | Promise<Answer | undefined> {
    const routed = deps.route(ctx);
    if (!(routed instanceof Promise)) return routed;
    return new Promise<Answer | undefined>((resolve, reject) => {
      deadline.timer = setTimeout(
        () => (deadline.controller().abort(), reject(requestTimeout())),
        deps.deadlineMs - (clock() - ctx.startedAt),
      );
      routed.then(resolve, reject);
    });
  }

  /** The answer's refund, headers and log line, once it is known. */
  function conclude(ctx: Context, answer: Answer, deadline: Deadline): Answer | Promise<Answer> {
    const done = ctx;
    if (deps.rowsSent) done.onDone(() => done.rowsSent > 0 && deps.rowsSent!(done, done.rowsSent));
    // A streamed body keeps the deadline until it ends (streamed.ts); any other answer is over now.
    if (ctx.streaming) ctx.onDone(() => clearTimeout(deadline.timer));
    else clearTimeout(deadline.timer);
    // docs/decisions.md §4: a 304 refunds its charge, and so does every 5xx (the service's failure); docs/decisions.md
    // §13: so does a 429 past the per-client limit of heavy requests. The answer's RateLimit shows what is left.
    const refunded = answer.status === 304 || answer.status >= 500 || ctx.refundCharge ? deps.refund(ctx) : undefined;
    return refunded instanceof Promise ? refunded.then(() => logged(ctx, answer)) : logged(ctx, answer);
  }

  /** The answer with the headers every answer carries, the request over and logged. */
  function logged(ctx: Context, answer: Answer): Answer {
    const response = finish(answer, ctx, ctx.requestMethod === 'HEAD');
    if (!ctx.streaming) ctx.done();
    const ms = clock() - ctx.startedAt;
    deps.logRequest(ctx.requestMethod, ctx.path, response.status, ctx.startedAt, ms, ctx.trace, ctx.log);
    return response;
  }

  /** A request that failed before its route answered: the problem document, on whatever context there is. */
  function failed(request: IncomingRequest, ctx: Context | undefined, startedAt: number): Context {
    const failedCtx = ctx ?? fallbackContext(request, traceFrom(null), startedAt);
    // A streamed answer that failed before it was returned has nothing left to stream.
    failedCtx.streaming = false;
    return failedCtx;
  }

  return function handle(request: IncomingRequest): Answer | Promise<Answer> {
    const startedAt = clock();
    let ctx: Context | undefined;
    const deadline = new Deadline();
    let answer: Answer | undefined | Promise<Answer | undefined>;
    try {
      const trace = traceFrom(request.headers.get('traceparent'));
      ctx = createContext(request, trace, startedAt, () => deadline.controller().signal);
      onlyGetAndHead(ctx);
      answer = answered(ctx, deadline);
    } catch (error) {
      const at = failed(request, ctx, startedAt);
      return conclude(at, toProblem(error, at), deadline);
    }
    const routed = ctx;
    if (!(answer instanceof Promise)) {
      return conclude(routed, answer ?? toProblem(new Error('no route answered'), routed), deadline);
    }
    return answer.then(
      (response) => conclude(routed, response ?? toProblem(new Error('no route answered'), routed), deadline),
      (error) => {
        const at = failed(request, routed, startedAt);
        return conclude(at, toProblem(error, at), deadline);
      },
    );
  };
}

/**
 * A request's deadline: its controller, made when first asked for, and the timer that aborts it. A class: an object
 * literal's arrow function is given its name by a call per request under tsx (esbuild's keepNames).
 */
class Deadline {
  timer: ReturnType<typeof setTimeout> | undefined = undefined;
  private abort: AbortController | undefined = undefined;
  controller(): AbortController {
    return (this.abort ??= new AbortController());
  }
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
function finish(response: Answer, ctx: Context, head: boolean): Answer {
  const headers = response.headers;
  headers.set('traceparent', ctx.trace.traceparent);
  for (const name in ctx.headers) headers.set(name, ctx.headers[name]);
  if (!head) return response;
  const body = response.body;
  if (body instanceof ReadableStream) body.cancel().catch(() => {});
  // RFC 9110 §9.3.2: HEAD's headers are GET's, the length of the body it leaves out included.
  else if (body !== null && !headers.has('content-length'))
    headers.set(
      'content-length',
      String(typeof body === 'string' ? new TextEncoder().encode(body).length : body.length),
    );
  return respond(null, { status: response.status, headers });
}
