// A report data or export request before its charge, whose cost is the ad accounts in scope (docs/decisions.md §4):
// the query string read once, an interval's resume point, where its data will be read, and the report read there.
// After the charge, prepare.ts checks the request against that report and works out the answer.
import type { Context } from '../http/context.ts';
import type { Admitted, Principal } from '../http/caller.ts';
import type { ReadSource } from '../store/replicas.ts';
import { ApiError } from '../http/problem.ts';
import { whenReady } from '../http/whenReady.ts';
import { readReportQuery, type DataParams, type ReportQuery } from './params.ts';
import type { readResumePoint, ResumePoint } from './changes.ts';
import { accountsInScope, readScope, type ReportScope } from './scope.ts';

/** What the reading found: the parameters or their problem, the report as this client may see it, and its source. */
export type ReportRequest = {
  /** Checked; or the problem they have, answered after the charge (docs/decisions.md §4's order). */
  params: DataParams | ApiError;
  /** undefined: no such report within reach; 'unread': the store did not answer (the charge will say so first). */
  scope: ReportScope | undefined | 'unread';
  /** The ad accounts the request asks about, which its cost counts. */
  costAccounts: string[] | undefined;
  /** The date ranges it reads: 2 with a comparison range, which doubles its cost. */
  ranges: 1 | 2;
  /** With an interval: where the answer resumes, or why that could not be read (changes.ts). */
  resume: ResumePoint;
  /** Where the report was read, and its data will be: the primary, or a standby that has replayed enough. */
  reads: ReadSource;
};

/** A report data or export request past its charge: the caller charged, and the request as read. */
export type ReportCall = Admitted & { report: ReportRequest };

/**
 * Report queries by query string: a dashboard asks the same few again and again, and checking them is a good part of a
 * 304's work. Only what does not depend on the clock is kept (not changedSince, which must not be in the future), and
 * never a refusal; a few hundred queries at most, the oldest dropped first.
 */
const queries = new Map<string, ReportQuery>();
const KEPT_QUERIES = 256;

/** The request's query, read once (params.ts, readReportQuery). */
function reportQuery(ctx: Context): ReportQuery {
  const text = ctx.url.indexOf('?') < 0 ? '' : ctx.url.slice(ctx.url.indexOf('?'));
  const kept = queries.get(text);
  if (kept) return kept;
  const query = readReportQuery(ctx);
  const { params, impossibleDate } = query;
  if (params instanceof ApiError || impossibleDate || params.changedSince !== undefined) return query;
  if (queries.size >= KEPT_QUERIES) queries.delete(queries.keys().next().value!);
  queries.set(text, query);
  return query;
}

type ReadingDeps = {
  resumePoint: ReturnType<typeof readResumePoint>;
  /** Where a request's reads run: the primary, or a standby that has replayed what it must see. */
  reads: (ctx: Context) => ReadSource | Promise<ReadSource>;
};

/**
 * Pipeline step: a date no report can hold is refused here, before the charge; an interval's resume point is read
 * before the source is chosen, so the rows come from a snapshot after it (changes.ts); then the report, once, from
 * that source.
 */
export function reportReading({ resumePoint, reads }: ReadingDeps) {
  return (ctx: Context, principal: Principal): Promise<ReportRequest> => {
    const query = reportQuery(ctx);
    if (query.impossibleDate) throw query.impossibleDate;
    const { params, costAccounts, ranges } = query;
    return whenReady(resumePoint(query), (resume) =>
      whenReady(reads(ctx), (source) =>
        readScope(source.sql, ctx, principal).then(
          (scope): ReportRequest => ({ params, scope, costAccounts, ranges, resume, reads: source }),
          (): ReportRequest => ({ params, scope: 'unread', costAccounts, ranges, resume, reads: source }),
        ),
      ),
    );
  };
}

/**
 * docs/decisions.md §4: report data costs the number of ad accounts in scope (after adAccountIds), at least 1; twice
 * that with a comparison range, which reads two.
 */
export function dataCost({ scope, costAccounts, ranges }: ReportRequest): number {
  if (scope === undefined || scope === 'unread') return ranges;
  return ranges * Math.max(1, accountsInScope(scope, costAccounts).length);
}
