// docs/decisions.md §6, changedSince: where a client that loads periods resumes. Each answer with an interval names the
// instant to pass as the next changedSince (the Next-Changed-Since header), such that no fact write is missed, not even
// one that commits while this answer is read (migration 021, facts-resume-point.sql).
import type { Context } from '../http/context.ts';
import type { Sql } from '../store/database.ts';
import { query } from '../store/queries.ts';

export const RESUME_HEADER = 'next-changed-since';

/**
 * Pipeline step, before the read source is chosen: an answer with an interval reads its resume point on the primary
 * first, so the snapshot its rows are read from (on the primary, or on a standby that has replayed what the primary
 * had written by then) comes after it. A failure is kept, and is the route's answer once the request is charged.
 */
export function readResumePoint(primary: Sql) {
  return async function withResumePoint(ctx: Context): Promise<void> {
    if (ctx.query.interval === undefined) return;
    try {
      const [row] = await query(primary, 'facts-resume-point');
      ctx.resumeAt = row.resume;
    } catch (error) {
      ctx.resumeAt = error instanceof Error ? error : new Error(String(error));
    }
  };
}

/** The request's resume point, read by readResumePoint. */
export function resumePoint(ctx: Context): string {
  const resume = ctx.resumeAt;
  if (resume instanceof Error) throw resume;
  if (resume === undefined)
    throw new Error(`${ctx.route}: no resume point read (the pipeline reads it before the read source)`);
  return resume;
}
