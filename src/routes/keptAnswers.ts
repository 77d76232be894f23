// Answers an adapter can write without the Fetch pipeline (serve/direct.ts, Node's): a client's first page of reports
// kept in memory, and a 304 for report data whose ETag still matches. Each is the pipeline's own answer, charge and log
// line, given only when every check of docs/decisions.md §4 passes from this process's memory; otherwise undefined, for
// the pipeline to answer (or refuse), with nothing charged. With standbys the pipeline answers: its log line names one.
import type { Config } from '../config.ts';
import type { Principal } from '../http/caller.ts';
import type { DirectAnswer } from '../http/incoming.ts';
import { undeclared } from '../http/declared.ts';
import { requestTimeout } from '../http/deadline.ts';
import { problemAnswer } from '../http/problem.ts';
import type { RequestLogger } from '../http/requestLog.ts';
import { JSON_TYPE } from '../http/respond.ts';
import { traceFrom } from '../http/trace.ts';
import type { Plan, Plans } from '../billing/plans.ts';
import { setStandingHeaders, type Quota } from '../billing/quota/charging.ts';
import type { Scope } from '../auth/scopes.ts';
import type { Sql } from '../store/database.ts';
import { readDataParams, type DataParams } from '../report/params.ts';
import { answerPlan, etagMatches } from '../report/request.ts';
import { accountsInScope, currentScope, type ReportScope } from '../report/scope.ts';
import { dataHeaders } from './reportData.ts';
import type { reports } from './reports.ts';

type Deps = {
  /** The primary: the pipeline's read source without standbys. */
  sql: Sql;
  config: Pick<Config, 'replicaUrls' | 'requestDeadlineMs' | 'problemsUrl'>;
  /** authenticate's known: the caller of a header verified before, if nothing is due. */
  known: (header: string, now: number) => Principal | undefined;
  plans: Plans;
  meter: Quota;
  reportList: ReturnType<typeof reports>;
  logRequest: RequestLogger;
  clock: () => number;
};

export type Kept = (
  url: string,
  header: (name: string) => string | undefined,
) => DirectAnswer | Promise<DirectAnswer | undefined> | undefined;

/** /v1/reports/{id}/data with a query of plain characters only, which URL and URLSearchParams read alike. */
const DATA_PATH = /^\/v1\/reports\/([0-9A-Fa-f-]{36})\/data(\?[\w.~=&,%+:-]*)?$/;
const DATA_ROUTE = '/v1/reports/:id/data';
/** What a read that outlived the request deadline is rejected with. */
const LATE = new Error('the request deadline passed');

export function keptAnswers({ sql, config, known, plans, meter, reportList, logRequest, clock }: Deps): Kept {
  /** The caller, when authentication, the plan, the lock and the scope all pass from memory (no wait, no refusal). */
  function admitted(header: (name: string) => string | undefined, scope: Scope, now: number) {
    const principal = known(header('authorization') ?? '', now);
    if (!principal?.scopes.includes(scope)) return undefined;
    const standing = plans.standing(principal.organizationId);
    if (standing instanceof Promise || !standing.plan?.publicApi || standing.plan.locked) return undefined;
    return { principal, plan: standing.plan };
  }

  /** The standing headers, trace and log line every kept answer carries. */
  function answered(
    path: string,
    status: number,
    startedAt: number,
    header: (name: string) => string | undefined,
    noted: { clientId: string; cost?: number },
    standing?: { budget: number; used: number; now: number },
  ): string[] {
    const trace = traceFrom(header('traceparent') ?? null);
    logRequest('GET', path, status, startedAt, clock() - startedAt, trace, noted);
    if (!standing) return ['traceparent', trace.traceparent];
    const headers: Record<string, string> = {};
    setStandingHeaders(headers, standing.budget, standing.used, standing.now);
    return [
      'traceparent',
      trace.traceparent,
      'ratelimit-policy',
      headers['ratelimit-policy'],
      'ratelimit',
      headers.ratelimit,
    ];
  }

  // What a dashboard asks most: its first page of reports, charged from the client's lease.
  let keptLength = { body: '', length: '0' };
  function firstPage(url: string, header: (name: string) => string | undefined): DirectAnswer | undefined {
    const startedAt = clock();
    const caller = admitted(header, 'reports:read', startedAt);
    if (!caller) return undefined;
    let body: string | undefined;
    const { principal } = caller;
    const charged = meter.chargeLeased(
      principal,
      1,
      (version) => (body = reportList.keptList(principal, version)) !== undefined,
    );
    if (!charged || body === undefined) return undefined;
    if (keptLength.body !== body) keptLength = { body, length: String(new TextEncoder().encode(body).length) };
    const headers = answered(url, 200, startedAt, header, { clientId: principal.clientId, cost: 1 }, charged);
    return { status: 200, body, headers: ['content-type', JSON_TYPE, 'content-length', keptLength.length, ...headers] };
  }

  /**
   * A dashboard refreshing an unchanged report: report data with If-None-Match. The report is as a read begun after the
   * request came finds it (currentScope, report/scope.ts), so no write committed before it is missed; the rest (the
   * parameters, the answer's plan and ETag, the charge a 304 gives back) comes from memory.
   */
  function notModified(url: string, header: (name: string) => string | undefined) {
    const match = DATA_PATH.exec(url);
    const ifNoneMatch = header('if-none-match');
    if (!match || !ifNoneMatch) return undefined;
    const startedAt = clock();
    const caller = admitted(header, 'reports:data', startedAt);
    if (!caller) return undefined;
    const query = match[2] ?? '';
    const params = checkedParams(query);
    // A client without a lease is charged by the store, which may refuse it: the pipeline's to do.
    if (!params || !meter.leasedRefund(caller.principal, 1)) return undefined;
    const path = url.slice(0, url.length - query.length);
    return whenRead(currentScope(sql, match[1], caller.principal), (scope) => {
      if (!scope) return undefined;
      const { principal } = caller;
      const cost = Math.max(1, accountsInScope(scope, params.adAccountIds).length);
      const standing = meter.leasedRefund(principal, cost);
      const data = standing && planned(scope, params, caller.plan, query);
      if (!data || !etagMatches(ifNoneMatch, data.etag)) return undefined;
      let about = dataHeaderLists.get(data);
      if (!about) dataHeaderLists.set(data, (about = Object.entries(dataHeaders(data)).flat()));
      const headers = about.slice();
      headers.push(...answered(path, 304, startedAt, header, { clientId: principal.clientId, cost: 0 }, standing));
      return { status: 304, body: '', headers };
    }).catch(() => {
      // The read did not answer by the deadline: the pipeline's 503, as its deadline would give.
      const error = requestTimeout();
      const trace = traceFrom(header('traceparent') ?? null);
      const context = { problemsUrl: config.problemsUrl, instance: path, traceId: trace.traceId };
      logRequest('GET', path, 503, startedAt, clock() - startedAt, trace, { clientId: caller.principal.clientId });
      return problemAnswer(error, context, trace.traceparent);
    });
  }

  /**
   * The read's outcome given to answer, or undefined (for the pipeline, which reads again) when it fails; rejected
   * when the deadline passes first. One deadline a shared read, from the first request that waits on it: the others
   * came later, so none waits past its own.
   */
  const deadlines = new WeakMap<Promise<unknown>, Promise<unknown>>();
  function whenRead<T>(
    read: Promise<T>,
    answer: (value: T) => DirectAnswer | undefined,
  ): Promise<DirectAnswer | undefined> {
    let bounded = deadlines.get(read) as Promise<T> | undefined;
    if (!bounded) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(LATE), config.requestDeadlineMs);
      });
      bounded = Promise.race([read.finally(() => clearTimeout(timer)), late]);
      deadlines.set(read, bounded);
    }
    return bounded.then(
      (value) => {
        try {
          return answer(value);
        } catch {
          return undefined;
        }
      },
      (error) => {
        if (error === LATE) throw error;
        return undefined;
      },
    );
  }

  return (url, header) => {
    if (config.replicaUrls.length > 0) return undefined;
    if (url === '/v1/reports') return firstPage(url, header);
    return url.startsWith('/v1/reports/') ? notModified(url, header) : undefined;
  };
}

/** A plan's headers as the flat list an answer carries, kept with the plan (report/request.ts keeps it). */
const dataHeaderLists = new WeakMap<object, string[]>();

/** The answer's plan, or undefined where the report refuses the request (a 400 or 503 the pipeline gives). */
function planned(scope: ReportScope, params: DataParams, plan: Plan, query: string) {
  try {
    return answerPlan(scope, params, plan, 'json', query);
  } catch {
    return undefined;
  }
}

/**
 * Parameters by query string, checked as the pipeline checks them (declared, then each, dates included): the same
 * query gives the same parameters, but for an interval, whose resume point is read per request. Null where the
 * pipeline would refuse, or must answer. A few hundred queries at most, the oldest dropped first.
 */
const paramsByQuery = new Map<string, DataParams | null>();
const KEPT_QUERIES = 256;

function checkedParams(query: string): DataParams | null {
  let params = paramsByQuery.get(query);
  if (params !== undefined) return params;
  params = parsed(query);
  if (paramsByQuery.size >= KEPT_QUERIES) paramsByQuery.delete(paramsByQuery.keys().next().value!);
  paramsByQuery.set(query, params);
  return params;
}

function parsed(query: string): DataParams | null {
  // As itty-router reads a query (Router.fetch): a repeated name collects its values, unless the first was empty.
  const values: Record<string, string | string[] | undefined> = Object.create(null);
  for (const [name, value] of new URLSearchParams(query)) {
    const had = values[name];
    values[name] = had ? ([] as string[]).concat(had, value) : value;
  }
  if (undeclared(DATA_ROUTE, values)) return null;
  try {
    const params = readDataParams({ query: values });
    return params.interval ? null : params;
  } catch {
    return null;
  }
}
