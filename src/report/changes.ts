// docs/decisions.md §6, changedSince: where a client that loads periods resumes. Each answer with an interval names the
// instant to pass as the next changedSince (the Next-Changed-Since header), such that no fact write is missed, not even
// one that commits while this answer is read (migration 021, facts-resume-point.sql).
import { ApiError } from '../http/problem.ts';
import type { ReportQuery } from './params.ts';
import type { Sql } from '../store/database.ts';
import { query } from '../store/queries.ts';

export const RESUME_HEADER = 'next-changed-since';

/** An interval answer's resume point, or the failure to read it (answered once the request is charged). */
export type ResumePoint = string | Error | undefined;

/**
 * Pipeline step, before the read source is chosen: an answer with an interval reads its resume point on the primary
 * first, so the snapshot its rows are read from (on the primary, or on a standby that has replayed what the primary
 * had flushed by then) comes after it. Without an interval there is none to read.
 */
export function readResumePoint(primary: Sql) {
  return function withResumePoint({ params }: ReportQuery): ResumePoint | Promise<ResumePoint> {
    if (params instanceof ApiError || params.interval === undefined) return undefined;
    return query(primary, 'facts-resume-point').then(
      ([row]) => row.resume,
      (error) => (error instanceof Error ? error : new Error(String(error))),
    );
  };
}
