// The whole service as one Fetch handler: the request pipeline, written out once.
import { Router } from 'itty-router';
import type { Config } from './config.ts';
import { createContext, type Context } from './context.ts';
import type { Sql } from './database.ts';
import { ApiError, problemResponse } from './problem.ts';
import { respond } from './respond.ts';
import { tokenVerifier } from './accessTokens.ts';
import { authenticate } from './authenticate.ts';
import { revocations } from './revocations.ts';
import { health } from './routes/health.ts';
import { me } from './routes/me.ts';
import { tokenEndpoint } from './routes/token.ts';
import { signingKeys } from './signingKeys.ts';
import { traceFrom, type Trace } from './trace.ts';

export type LogLine = Record<string, unknown>;

export type AppDeps = {
  sql: Sql;
  config: Config;
  /** Milliseconds since the epoch; tests move time by hand. */
  clock?: () => number;
  log?: (line: LogLine) => void;
};

export type App = (request: Request) => Promise<Response>;

const defaultLog = (line: LogLine) => console.log(JSON.stringify(line));

export function createApp(deps: AppDeps): App {
  const { sql, config } = deps;
  const clock = deps.clock ?? Date.now;
  const log = deps.log ?? defaultLog;
  const keys = signingKeys(sql, clock);
  const withPrincipal = authenticate(tokenVerifier(keys, config.baseUrl), revocations(sql, clock), clock);

  // Spec §8 / DECISIONS §8: only GET and HEAD exist under /v1.
  const onlyGetAndHead = (ctx: Context) => {
    if (ctx.method !== 'GET') {
      throw new ApiError('not-found', `${ctx.request.method} is not allowed here; every /v1 path answers GET and HEAD only.`, {
        status: 405,
        headers: { allow: 'GET, HEAD' },
      });
    }
  };
  const noSuchPath = (ctx: Context) => {
    throw new ApiError('not-found', `There is no resource at ${ctx.path}.`);
  };

  const router = Router<Context, []>({
    catch: (error, ctx) => toProblem(error, ctx as unknown as Context),
  });
  router
    .all('/api/connect/token', tokenEndpoint({ sql, keys, clock, issuer: config.baseUrl, ttlSeconds: config.tokenTtlSeconds }))
    .all('/v1/*', onlyGetAndHead)
    .get('/v1/health', health(sql))
    .get('/v1/me', withPrincipal, me(sql, clock))
    .all('*', noSuchPath);

  function toProblem(error: unknown, ctx: Context): Response {
    let apiError: ApiError;
    if (error instanceof ApiError) {
      apiError = error;
    } else {
      // The one place an unknown error becomes internal-error; the log line keeps what the client never sees.
      ctx.log.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
      apiError = new ApiError('internal-error');
    }
    return problemResponse(apiError, { problemsUrl: config.problemsUrl, instance: ctx.path, traceId: ctx.trace.traceId });
  }

  return async function handle(request: Request): Promise<Response> {
    const startedAt = clock();
    let trace = traceFrom(null);
    let ctx = fallbackContext(request, trace, startedAt);
    let response: Response;
    try {
      trace = traceFrom(request.headers.get('traceparent'));
      ctx = createContext(request, trace, startedAt);
      response = (await router.fetch(ctx)) ?? toProblem(new Error('no route answered'), ctx);
    } catch (error) {
      response = toProblem(error, ctx);
    }
    response = finish(response, ctx, ctx.requestMethod === 'HEAD');
    log({
      time: new Date(startedAt).toISOString(),
      method: ctx.requestMethod,
      path: ctx.path,
      status: response.status,
      ms: clock() - startedAt,
      clientId: ctx.log.clientId ?? null,
      traceId: trace.traceId,
      cost: ctx.log.cost ?? 0,
      ...(ctx.log.error ? { error: ctx.log.error } : {}),
    });
    return response;
  };
}

/** Enough of a context to answer and log a request whose own fields could not be read. */
function fallbackContext(request: Request, trace: Trace, startedAt: number): Context {
  let path = '/';
  try {
    path = new URL(request.url).pathname;
  } catch {}
  return { ...createContext(new Request('http://invalid/'), trace, startedAt), path, requestMethod: 'UNKNOWN' };
}

/** Adds the per-request headers; HEAD keeps the headers and drops the body. */
function finish(response: Response, ctx: Context, head: boolean): Response {
  const headers = response.headers;
  headers.set('traceparent', ctx.trace.traceparent);
  for (const [name, value] of Object.entries(ctx.headers)) headers.set(name, value);
  if (!head) return response;
  response.body?.cancel().catch(() => {});
  return respond(null, { status: response.status, headers });
}
