// The whole service as one Fetch handler: the request pipeline, written out once.
import { Router } from 'itty-router';
import { tokenIssuers, tokenVerifier } from './auth/accessTokens.ts';
import { authenticate, requireScope } from './auth/authenticate.ts';
import type { Config } from './config.ts';
import { createContext, type Context } from './http/context.ts';
import type { Sql } from './store/database.ts';
import { requestLogger, type LogLine, type RequestLogger } from './http/requestLog.ts';
import { requirePlan, requireUnlocked } from './billing/planCheck.ts';
import { planCache, storePlanReader, type PlanReader } from './billing/plans.ts';
import { ApiError, problemResponse } from './http/problem.ts';
import { quota } from './billing/quota/charging.ts';
import { respond } from './http/respond.ts';
import { dataCost, readReportRequest } from './report/request.ts';
import { refuseImpossibleDates } from './report/params.ts';
import { requestTimeout } from './http/deadline.ts';
import { revocations } from './auth/revocations.ts';
import { health } from './routes/health.ts';
import { me } from './routes/me.ts';
import { adAccounts } from './routes/adAccounts.ts';
import { campaigns } from './routes/campaigns.ts';
import { contract } from './routes/contract.ts';
import { metrics } from './routes/metrics.ts';
import { organizations } from './routes/organizations.ts';
import { reportData } from './routes/reportData.ts';
import { exportCost, reportExport } from './routes/reportExport.ts';
import { reports } from './routes/reports.ts';
import { segments } from './routes/segments.ts';
import { tokenEndpoint, tokenFailure } from './routes/token.ts';
import type { Scope } from './auth/scopes.ts';
import { directAnswers } from './serve/direct.ts';
import { keptAnswers } from './routes/keptAnswers.ts';
import type { Direct, DirectAnswer, IncomingRequest, Malformed } from './serve/types.ts';
import { signingKeys } from './auth/signingKeys.ts';
import { traceFrom, type Trace } from './http/trace.ts';
import { TimedOut } from './store/timeout.ts';
import type { ExclusivePool } from './store/exclusive.ts';
import { heavyLane } from './report/lane.ts';
import { readResumePoint } from './report/changes.ts';
import { refuseUndeclared } from './http/declared.ts';
import type { ReadSource } from './store/replicas.ts';
import { heavyPool, standbyReads } from './store/readSources.ts';
import { localSettings, sessionSettings, SHARED_STATEMENT_TIMEOUT_MS } from './store/database.ts';
import type { AppMetrics } from './serve/metrics.ts';

export type { LogLine };

export type AppDeps = {
  sql: Sql;
  config: Config;
  /** Milliseconds since the epoch; tests move time by hand. */
  clock?: () => number;
  log?: (line: LogLine) => void;
  /** The billing store; tests make it fail. */
  readPlan?: PlanReader;
  /** Connections lent whole to report data and exports; by default opened like sql's own. */
  heavy?: ExclusivePool;
  /** Counts for Prometheus (METRICS_PORT), when it is set. */
  metrics?: AppMetrics;
};

export type App = ((request: IncomingRequest) => Promise<Response>) & {
  /** Every route as [method, path], for checking the router against spec/openapi.json. */
  routes: [string, string][];
  /**
   * GET /v1/health answered without a Request or a Response, for adapters that can write one directly (Node): the
   * same status, headers, body and log line as the pipeline gives. Undefined for any other request, and while a
   * database check is due, so the pipeline answers those.
   */
  direct: Direct;
  /** Ends what the app holds in the store's name (quota leases); call it before the database closes. */
  close(): Promise<void>;
  /**
   * Reads what verifying a token needs (signing keys, issuers, revoked clients), so a process answers a sibling's token
   * from its first request on (docs/decisions.md §9). What the store does not give now is read on demand as before.
   */
  warm(): Promise<void>;
  /** The answer to a request HTTP could not parse, for adapters whose parser refuses some (Node's). */
  refuse: (why: Malformed, method: string, path: string) => DirectAnswer;
};

/** A request's quota cost: fixed, or worked out from what the request read before the charge (report data). */
export type Cost = number | ((ctx: Context) => number);

export function createApp(deps: AppDeps): App {
  const { sql, config } = deps;
  const clock = deps.clock ?? Date.now;
  const counts = deps.metrics;
  // The route's pattern, not the path: ids would give the metrics a label value per report.
  let routeOf = (_method: string, path: string) => path;
  const writeLog = requestLogger(deps.log);
  const logRequest: RequestLogger = !counts
    ? writeLog
    : (method, path, status, startedAt, ms, trace, noted) => {
        writeLog(method, path, status, startedAt, ms, trace, noted);
        counts.answered(routeOf(method, path), status, ms / 1000);
        if (noted.refusal) counts.refused(noted.refusal);
      };
  const keys = signingKeys(sql, clock);
  const plans = planCache(deps.readPlan ?? storePlanReader(sql), clock);
  // The charges and refunds wait on a window's lock, bounded on the server (docs/decisions.md §4); behind a transaction
  // pooler the bound is set in each one's own transaction.
  const meter = quota(
    sql,
    clock,
    localSettings(
      sql,
      config.poolMode,
      sessionSettings({ asyncCommit: true, statementTimeoutMs: SHARED_STATEMENT_TIMEOUT_MS }),
    ),
  );
  const exclusive = deps.heavy ?? heavyPool(sql, config);
  const lane = heavyLane(exclusive, config.heavyPerClient);
  const primary: ReadSource = { name: 'primary', sql, heavy: exclusive };
  const reads = standbyReads(primary, config);

  // docs/decisions.md §4, in this order: authenticate (401), plan (503/403), lock (403), scope (403), then charge
  // (429/503); then parameters (400: an undeclared one first, docs/decisions.md §8, then the route's own) and resources
  // (404) before it works.
  const issuers = tokenIssuers(sql, config.baseUrl);
  const revoked = revocations(sql, clock);
  const withPrincipal = authenticate(tokenVerifier(keys, issuers), revoked, clock);
  const withPlan = requirePlan(plans);
  const charged = (cost: Cost) =>
    function withCharge(ctx: Context) {
      return meter.charge(ctx, typeof cost === 'number' ? cost : cost(ctx));
    };
  // Where a request reads: the primary or a usable standby, picked once the request is authorised. The charge is
  // always the primary's.
  const withReads = async (ctx: Context) => {
    // Choosing a standby asks the primary how far it has written: with the primary gone, reads go to it, and the
    // charge (always the primary's) answers 503, as for any metered path, never a 500 (docs/decisions.md §4).
    ctx.reads = await reads.source().catch(() => primary);
    if (ctx.reads !== primary) ctx.log.standby = ctx.reads.name;
  };
  const withResumePoint = readResumePoint(sql);
  const guarded = (scope: Scope, cost: Cost) =>
    inOrder(withPrincipal, withPlan, requireUnlocked, requireScope(scope), charged(cost), refuseUndeclared, withReads);
  // Report data and exports: impossible dates are refused before the charge, whose cost needs the report, read once
  // (with the parameters) from where its data will be read (a client past its limit of them at once is refused by
  // the lane, and its charge given back). An answer with an interval reads its resume point before that source is
  // chosen (report/changes.ts).
  const heavy = (scope: Scope, cost: Cost) =>
    inOrder(
      withPrincipal,
      withPlan,
      requireUnlocked,
      requireScope(scope),
      refuseImpossibleDates,
      withResumePoint,
      withReads,
      readReportRequest,
      charged(cost),
      refuseUndeclared,
    );

  // docs/decisions.md §8: only GET and HEAD exist under /v1. Checked before routing (HEAD is routed as GET), so no
  // route's match pays for it.
  const onlyGetAndHead = (ctx: Context) => {
    if (ctx.method !== 'GET' && (ctx.path === '/v1' || ctx.path.startsWith('/v1/'))) {
      throw new ApiError(
        'not-found',
        `${ctx.requestMethod} is not allowed here; every /v1 path answers GET and HEAD only.`,
        {
          status: 405,
          headers: { allow: 'GET, HEAD' },
        },
      );
    }
  };
  const noSuchPath = (ctx: Context) => {
    throw new ApiError('not-found', `There is no resource at ${ctx.path}.`);
  };

  const liveness = health(sql);
  const orgs = organizations();
  const catalogue = metrics();
  const reportList = reports();
  const published = contract(config.baseUrl, config.problemsUrl);

  const router = Router<Context, []>({
    catch: (error, ctx) => toProblem(error, ctx as unknown as Context),
  });
  // itty-router tries the routes in order, a pattern match each: the ones clients call most come first.
  router
    .get('/v1/reports/:id/data', route(heavy('reports:data', dataCost), reportData(clock, lane)))
    .get('/v1/reports', route(guarded('reports:read', 1), reportList.list))
    .get('/v1/reports/:id', route(guarded('reports:read', 1), reportList.get))
    .get('/v1/reports/:id/export.csv', route(heavy('reports:export', exportCost), reportExport(clock, lane, 'csv')))
    .get('/v1/reports/:id/export.xlsx', route(heavy('reports:export', exportCost), reportExport(clock, lane, 'xlsx')))
    .all('/api/connect/token', tokenEndpoint({ sql, keys, clock, issuers, ttlSeconds: config.tokenTtlSeconds }))
    .get('/v1/health', route(refuseUndeclared, liveness))
    .get('/v1/me', route(inOrder(withPrincipal, refuseUndeclared), me({ sql, clock, plans, quota: meter })))
    .get('/v1/organizations', route(guarded('organizations:read', 1), orgs.list))
    .get('/v1/organizations/:id', route(guarded('organizations:read', 1), orgs.get))
    .get('/v1/organizations/:id/ad-accounts', route(guarded('ad-accounts:read', 1), adAccounts()))
    .get('/v1/organizations/:id/segments', route(guarded('segments:read', 1), segments()))
    .get('/v1/organizations/:id/campaigns', route(guarded('campaigns:read', 1), campaigns()))
    .get('/v1/organizations/:id/metrics', route(guarded('reports:read', 1), catalogue.organization))
    .get('/v1/metrics', route(guarded('reports:read', 1), catalogue.system))
    .get('/v1/openapi.json', route(refuseUndeclared, published.openapi))
    .get('/v1/docs', route(refuseUndeclared, published.docs))
    .get('/problems', published.problems)
    .get('/problems/:type', published.problem)
    .all('*', noSuchPath);
  routeOf = routeNamer(router.routes);
  counts?.pools(() => [{ pool: 'heavy', ...exclusive.stats() }, ...reads.pools()]);
  counts?.standbys(() => reads.states());

  function toProblem(error: unknown, ctx: Context): Response {
    // The token endpoint answers in RFC 6749's form whatever happens, the deadline included (docs/decisions.md §13).
    if (ctx.path === '/api/connect/token') {
      if (!(error instanceof ApiError))
        ctx.log.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
      return tokenFailure(error instanceof ApiError ? new TimedOut(error.type) : error);
    }
    let apiError: ApiError;
    if (error instanceof ApiError) {
      apiError = error;
      ctx.log.refusal = refusalOf(apiError, ctx);
    } else {
      // The one place an unknown error becomes internal-error; the log line keeps what the client never sees.
      ctx.log.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
      apiError = new ApiError('internal-error');
    }
    return problemResponse(apiError, {
      problemsUrl: config.problemsUrl,
      instance: ctx.path,
      traceId: ctx.trace.traceId,
    });
  }

  const handle = async function handle(request: IncomingRequest): Promise<Response> {
    const startedAt = clock();
    let trace: Trace | undefined;
    let ctx: Context | undefined;
    let response: Response;
    let deadline: AbortController | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      trace = traceFrom(request.headers.get('traceparent'));
      const routed = (ctx = createContext(
        request,
        trace,
        startedAt,
        () => (deadline ??= new AbortController()).signal,
      ));
      onlyGetAndHead(routed);
      // The route's answer or, at the deadline, request-timeout: one promise, not a race of two.
      const answered = new Promise<Response | undefined>((resolve, reject) => {
        timer = setTimeout(() => (deadline?.abort(), reject(requestTimeout())), config.requestDeadlineMs);
        router.fetch(routed).then(resolve, reject);
      });
      response = (await answered) ?? toProblem(new Error('no route answered'), ctx);
    } catch (error) {
      trace ??= traceFrom(null);
      ctx ??= fallbackContext(request, trace, startedAt);
      // A streamed answer that failed before it was returned has nothing left to stream.
      ctx.streaming = false;
      response = toProblem(error, ctx);
    }
    if (counts) {
      const done = ctx;
      done.onDone(() => done.rowsSent > 0 && counts.rows(routeOf(done.requestMethod, done.path), done.rowsSent));
    }
    // A streamed body keeps the deadline until it ends (streamed.ts); any other answer is over now.
    if (ctx.streaming) ctx.onDone(() => clearTimeout(timer));
    else clearTimeout(timer);
    // docs/decisions.md §4: a 304 refunds its charge; so does every 5xx, the service's failure (docs/decisions.md §4),
    // and a 429 past the per-client limit of heavy requests (docs/decisions.md §13). The answer's RateLimit header
    // shows the refunded standing.
    if (response.status === 304 || response.status >= 500 || ctx.refundCharge) await meter.refund(ctx);
    response = finish(response, ctx, ctx.requestMethod === 'HEAD');
    if (!ctx.streaming) ctx.done();
    logRequest(ctx.requestMethod, ctx.path, response.status, startedAt, clock() - startedAt, ctx.trace, ctx.log);
    return response;
  };

  const kept = keptAnswers({
    sql,
    config,
    known: withPrincipal.known,
    plans,
    meter,
    reportList,
    logRequest,
    clock,
  });
  const { direct, refuse } = directAnswers({
    liveness,
    kept,
    logRequest,
    clock,
    problemsUrl: config.problemsUrl,
  });

  return Object.assign(handle, {
    refuse,
    routes: router.routes.map(([method, , , path]) => [method, path] as [string, string]),
    direct,
    async warm() {
      await Promise.allSettled([keys.load(), issuers.load(), revoked.load()]);
    },
    async close() {
      await meter.close();
      if (!deps.heavy) await exclusive.close();
      await reads.close();
    },
  });
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

/** A request's route pattern from itty-router's table ([method, regex, handlers, pattern]); `unmatched` for none. */
function routeNamer(routes: readonly (readonly unknown[])[]): (method: string, path: string) => string {
  // Wildcard patterns are the guards every path passes (/v1/*) and the catch-all, never a route of their own.
  const table = routes
    .map(([method, regex, , pattern]) => ({
      method: method as string,
      regex: regex as RegExp,
      pattern: pattern as string,
    }))
    .filter((route) => !route.pattern.includes('*'));
  return (method, path) => {
    const asked = method === 'HEAD' ? 'GET' : method;
    for (const route of table)
      if ((route.method === asked || route.method === 'ALL') && route.regex.test(path)) return route.pattern;
    return 'unmatched';
  };
}

type Step = (ctx: Context) => void | Promise<void>;

/**
 * Steps as one handler, run in order, each awaited only when it has to wait. They answer from memory on nearly every
 * request; as handlers of their own, itty-router awaited every one.
 */
function inOrder(...steps: Step[]): Step {
  const from = (ctx: Context, first: number): void | Promise<void> => {
    for (let i = first; i < steps.length; i++) {
      const waiting = steps[i](ctx);
      if (waiting instanceof Promise) return waiting.then(() => from(ctx, i + 1));
    }
  };
  return function guards(ctx) {
    return from(ctx, 0);
  };
}

/**
 * A route's checks and its handler as the one handler itty-router awaits: it awaits each handler it is given, a
 * promise and a microtask turn apiece, though the checks answer from memory on nearly every request.
 */
function route(checks: Step, handler: (ctx: Context) => Response | Promise<Response>) {
  return function routed(ctx: Context): Response | Promise<Response> {
    const waiting = checks(ctx);
    return waiting instanceof Promise ? waiting.then(() => handler(ctx)) : handler(ctx);
  };
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
