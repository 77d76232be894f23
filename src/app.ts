// The whole service as one Fetch handler: the request pipeline, written out once.
import { Router } from 'itty-router';
import { tokenIssuers, tokenVerifier } from './auth/accessTokens.ts';
import { authenticate, requireScope } from './auth/authenticate.ts';
import type { Config } from './config.ts';
import type { Context } from './http/context.ts';
import { withReads, type Admitted, type Caller, type Charged, type Plan, type Principal } from './http/caller.ts';
import type { Sql } from './store/database.ts';
import { requestLogger, type LogLine, type RequestLogger } from './http/requestLog.ts';
import { requirePlan, requireUnlocked } from './billing/planCheck.ts';
import { planCache, storePlanReader, type PlanReader } from './billing/plans.ts';
import { ApiError } from './http/problem.ts';
import { quota } from './billing/quota/charging.ts';
import { dataCost, reportReading, type ReportCall, type ReportRequest } from './report/request.ts';
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
import { TimedOut } from './store/timeout.ts';
import type { Scope } from './auth/scopes.ts';
import { directAnswers } from './serve/direct.ts';
import type { Direct, DirectAnswer, IncomingRequest, Malformed } from './serve/types.ts';
import { signingKeys } from './auth/signingKeys.ts';
import type { ExclusivePool } from './store/exclusive.ts';
import { heavyLane } from './report/lane.ts';
import { writeLine } from './http/logLines.ts';
import { readResumePoint } from './report/changes.ts';
import { refuseUndeclared } from './http/declared.ts';
import type { ReadSource, Reads } from './store/replicas.ts';
import { heavyPool, standbyReads } from './store/readSources.ts';
import { localSettings, sessionSettings, SHARED_STATEMENT_TIMEOUT_MS } from './store/database.ts';
import type { AppCounters } from './serve/prometheus.ts';
import { requestCycle, type Cycle } from './http/lifecycle.ts';
import { type Answer, toResponse } from './http/answer.ts';
import { whenReady } from './http/whenReady.ts';

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
  counters?: AppCounters;
};

/** The Fetch handler: at once when every step answered from memory (whenReady), else once the last one has. */
export type App = ((request: IncomingRequest) => Response | Promise<Response>) & {
  /** The same request's answer as the pipeline gives it, for an adapter that writes it itself (Node's). */
  answer: Cycle;
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
   * from its first request on (docs/decisions.md §9). What the store does not give now is read on demand.
   */
  warm(): Promise<void>;
  /** The answer to a request HTTP could not parse, for adapters whose parser refuses some (Node's). */
  refuse: (why: Malformed, method: string, path: string) => DirectAnswer;
};

/** A route's answer: at once when every step answered from memory, else once the last one has. */
type Answering = Answer | Promise<Answer>;
type Handler<T> = (ctx: Context, value: T) => Answering;

export function createApp(deps: AppDeps): App {
  const { sql, config } = deps;
  const clock = deps.clock ?? Date.now;
  const keys = signingKeys(sql, clock);
  const plans = planCache(deps.readPlan ?? storePlanReader(sql), clock);
  // The charges and refunds wait on a window's lock, bounded on the server (docs/decisions.md §4); behind a transaction
  // pooler the bound is set in each one's own transaction.
  const settings = sessionSettings({ asyncCommit: true, statementTimeoutMs: SHARED_STATEMENT_TIMEOUT_MS });
  const meter = quota(sql, clock, localSettings(sql, config.poolMode, settings));
  const exclusive = deps.heavy ?? heavyPool(sql, config);
  const lane = heavyLane(
    config.heavyPerClient,
    config.downloadStallMs,
    deps.log ?? ((line) => writeLine(JSON.stringify(line))),
  );
  const primary: ReadSource = { name: 'primary', sql, heavy: exclusive };
  const reads = standbyReads(primary, config);
  const issuers = tokenIssuers(sql, config.baseUrl);
  const revoked = revocations(sql, clock);
  const source = readSource(reads, primary);
  const steps = pipelineSteps({
    withPrincipal: authenticate(tokenVerifier(keys, issuers), revoked, clock),
    withPlan: requirePlan(plans),
    charge: meter.charge,
    reads: source,
    readReport: reportReading({ resumePoint: readResumePoint(sql), reads: source }),
  });
  const { admitted, free, report, principal } = steps;

  const liveness = health(sql, undefined, { busyIsUp: !config.databaseUrl });
  const orgs = organizations();
  const catalogue = metrics();
  const reportList = reports();
  const published = contract(config.baseUrl, config.problemsUrl);
  const router = Router<Context, []>();
  // itty-router tries the routes in order, a pattern match each: the ones clients call most come first.
  router
    .get('/v1/reports/:id/data', report('reports:data', dataCost, reportData(clock, lane)))
    .get('/v1/reports', admitted('reports:read', reportList.list))
    .get('/v1/reports/:id', admitted('reports:read', reportList.get))
    .get('/v1/reports/:id/export.csv', report('reports:export', exportCost, reportExport(clock, lane, 'csv')))
    .get('/v1/reports/:id/export.xlsx', report('reports:export', exportCost, reportExport(clock, lane, 'xlsx')))
    .all('/api/connect/token', tokenEndpoint({ sql, keys, clock, issuers, ttlSeconds: config.tokenTtlSeconds }))
    .get('/v1/health', free(liveness))
    .get('/v1/me', principal(me({ sql, clock, plans, quota: meter })))
    .get('/v1/organizations', admitted('organizations:read', orgs.list))
    .get('/v1/organizations/:id', admitted('organizations:read', orgs.get))
    .get('/v1/organizations/:id/ad-accounts', admitted('ad-accounts:read', adAccounts()))
    .get('/v1/organizations/:id/segments', admitted('segments:read', segments()))
    .get('/v1/organizations/:id/campaigns', admitted('campaigns:read', campaigns()))
    .get('/v1/organizations/:id/metrics', admitted('reports:read', catalogue.organization))
    .get('/v1/metrics', admitted('reports:read', catalogue.system))
    .get('/v1/openapi.json', free(published.openapi))
    .get('/v1/docs', free(published.docs))
    .get('/problems', published.problems)
    .get('/problems/:type', published.problem)
    .all('*', (ctx) => {
      throw new ApiError('not-found', `There is no resource at ${ctx.path}.`);
    });

  const logRequest = countedLog(requestLogger(deps.log), deps.counters, router.routes);
  deps.counters?.pools(() => [{ pool: 'heavy', ...exclusive.stats() }, ...reads.pools()]);
  deps.counters?.standbys(() => reads.states());
  const exact = exactRoutes(router.routes);
  const handle = requestCycle({
    // A path that is a route's whole pattern is that route's, without matching every pattern before it in turn.
    route: (ctx) => {
      const route = ctx.method === 'GET' ? exact.get(ctx.path) : undefined;
      if (!route) return router.fetch(ctx);
      ctx.route = ctx.path;
      return route(ctx);
    },
    refund: meter.refund,
    logRequest,
    clock,
    deadlineMs: config.requestDeadlineMs,
    problemsUrl: config.problemsUrl,
    rowsSent: deps.counters && ((ctx, rows) => deps.counters!.rows(routeName(router.routes, ctx), rows)),
    failure: tokenProblem,
  });
  const { direct, refuse } = directAnswers({ liveness, logRequest, clock, problemsUrl: config.problemsUrl });

  const fetch = (request: IncomingRequest) => whenReady(handle(request), (answer) => toResponse(answer));
  return Object.assign(fetch as App, {
    answer: handle,
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

type StepDeps = {
  withPrincipal: ReturnType<typeof authenticate>;
  withPlan: ReturnType<typeof requirePlan>;
  charge: ReturnType<typeof quota>['charge'];
  /** Where a request's reads run: the primary, or a standby that has replayed what it must see. */
  reads: (ctx: Context) => ReadSource | Promise<ReadSource>;
  /** A report request read before its charge: its query, resume point, source and report (report/request.ts). */
  readReport: ReturnType<typeof reportReading>;
};

/**
 * The routes' checks, in docs/decisions.md §4's order: authenticate (401), plan (503, 403), lock (403), scope (403),
 * charge (429, 503), then parameters (400: an undeclared one first, docs/decisions.md §8, then the route's own) and
 * resources (404) before the work. Each step passes the next what it found; each answers at once from memory when it
 * can (whenReady), so a request that waits for nothing takes no promise.
 */
function pipelineSteps({ withPrincipal, withPlan, charge, reads, readReport }: StepDeps) {
  // The cheap routes run these on every request: written out with instanceof rather than whenReady, a request that
  // waits for nothing makes no closure either.
  const planned = (principal: Principal, plan: Plan, scope: Scope): Caller => {
    requireUnlocked(plan);
    requireScope(principal, scope);
    return { principal, plan };
  };
  const withCaller = (principal: Principal, scope: Scope): Caller | Promise<Caller> => {
    const plan = withPlan(principal);
    return plan instanceof Promise
      ? plan.then((found) => planned(principal, found, scope))
      : planned(principal, plan, scope);
  };
  const admit = (ctx: Context, scope: Scope): Caller | Promise<Caller> => {
    const principal = withPrincipal(ctx);
    return principal instanceof Promise
      ? principal.then((found) => withCaller(found, scope))
      : withCaller(principal, scope);
  };
  const answer = (ctx: Context, charged: Charged, handler: Handler<Admitted>): Answering => {
    refuseUndeclared(ctx);
    const source = reads(ctx);
    if (source instanceof Promise) return source.then((found) => handler(ctx, withReads(charged, found)));
    return handler(ctx, withReads(charged, source));
  };
  const chargeOne = (ctx: Context, caller: Caller, handler: Handler<Admitted>): Answering => {
    const charged = charge(ctx, caller, 1);
    if (charged instanceof Promise) return charged.then((found) => answer(ctx, found, handler));
    return answer(ctx, charged, handler);
  };

  return {
    /** Lists and definitions: admitted, charged 1, then read where the route's reads run. */
    admitted: (scope: Scope, handler: Handler<Admitted>) => (ctx: Context) => {
      const caller = admit(ctx, scope);
      if (caller instanceof Promise) return caller.then((found) => chargeOne(ctx, found, handler));
      return chargeOne(ctx, caller, handler);
    },

    /** Report data and exports: charged what the report read before the charge says they cost. */
    report: (scope: Scope, cost: (report: ReportRequest) => number, handler: Handler<ReportCall>) => (ctx: Context) =>
      whenReady(admit(ctx, scope), (caller) =>
        readReport(ctx, caller.principal).then((report) =>
          whenReady(charge(ctx, caller, cost(report)), (charged) => {
            refuseUndeclared(ctx);
            const { principal, plan, reportsVersion } = charged;
            return handler(ctx, { principal, plan, reportsVersion, reads: report.reads, report });
          }),
        ),
      ) as Answering,

    /** /v1/me: authenticated, never metered. */
    principal: (handler: (principal: Admitted['principal']) => Answering) => (ctx: Context) =>
      whenReady(withPrincipal(ctx), (principal) => {
        refuseUndeclared(ctx);
        return handler(principal);
      }) as Answering,

    /** Health, the OpenAPI document and its page: no caller, nothing metered. */
    free: (handler: (ctx: Context) => Answering) => (ctx: Context) => {
      refuseUndeclared(ctx);
      return handler(ctx);
    },
  };
}

/** The token endpoint answers in RFC 6749's form whatever happens, the deadline included (docs/decisions.md §13). */
function tokenProblem(error: unknown, ctx: Context): Answer | undefined {
  if (ctx.path !== '/api/connect/token') return undefined;
  if (!(error instanceof ApiError))
    ctx.log.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return tokenFailure(error instanceof ApiError ? new TimedOut(error.type) : error);
}

/**
 * Pipeline step: where the request reads, the primary or a usable standby (its log line names it). Choosing a standby
 * asks the primary how far it has flushed: with the primary gone, reads go to it, and the charge (always the
 * primary's) answers 503, as for any metered path, never a 500 (docs/decisions.md §4).
 */
function readSource(reads: Reads, primary: ReadSource) {
  return (ctx: Context): ReadSource | Promise<ReadSource> => {
    const source = reads.source();
    if (!(source instanceof Promise)) return source;
    return source.then(
      (standby) => {
        if (standby !== primary) ctx.log.standby = standby.name;
        return standby;
      },
      () => primary,
    );
  };
}

type RouteTable = readonly (readonly unknown[])[];

/** The GET routes whose pattern is a plain path (no parameter, no wildcard), by that path, each with its handler. */
function exactRoutes(routes: RouteTable): Map<string, (ctx: Context) => Answering> {
  const exact = new Map<string, (ctx: Context) => Answering>();
  for (const [method, , handlers, pattern] of routes) {
    const path = pattern as string;
    if (method === 'GET' && !/[:*]/.test(path) && !exact.has(path))
      exact.set(path, (handlers as ((ctx: Context) => Answering)[])[0]);
  }
  return exact;
}

/** The request log, counted per route pattern for the metrics when they are on. */
function countedLog(log: RequestLogger, counts: AppCounters | undefined, routes: RouteTable): RequestLogger {
  if (!counts) return log;
  return (method, path, status, startedAt, ms, trace, noted) => {
    log(method, path, status, startedAt, ms, trace, noted);
    counts.answered(routeName(routes, { requestMethod: method, path }), status, ms / 1000);
    if (noted.refusal) counts.refused(noted.refusal);
  };
}

/**
 * A request's route pattern from itty-router's table ([method, regex, handlers, pattern]), `unmatched` for none: the
 * pattern, not the path, or the metrics would have a label value per report.
 */
function routeName(routes: RouteTable, { requestMethod, path }: Pick<Context, 'requestMethod' | 'path'>): string {
  const asked = requestMethod === 'HEAD' ? 'GET' : requestMethod;
  for (const [method, regex, , pattern] of routes) {
    if ((pattern as string).includes('*')) continue;
    if ((method === asked || method === 'ALL') && (regex as RegExp).test(path)) return pattern as string;
  }
  return 'unmatched';
}
