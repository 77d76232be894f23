// The request deadline (docs/decisions.md §6): work still running at REQUEST_DEADLINE_MS is cancelled, SQL included.
import type { Context } from './context.ts';
import type { Lent } from '../store/exclusive.ts';
import { ApiError } from './problem.ts';

export const requestTimeout = () =>
  new ApiError(
    'request-timeout',
    'The request hit its deadline and was cancelled. Retry with a shorter range, fewer ad accounts or a smaller page.',
  );

/**
 * Runs a query on the request's own connection (report/lane.ts), which the deadline abandons, ending its backend on the
 * server. The connection counts as idle again only once the answer has been read whole.
 */
export async function beforeDeadline<T>(ctx: Context, lent: Lent, pending: PromiseLike<T>): Promise<T> {
  if (ctx.deadline.aborted) throw requestTimeout();
  lent.busy();
  try {
    const answer = await pending;
    lent.finished();
    return answer;
  } catch (error) {
    if (ctx.deadline.aborted) throw requestTimeout();
    throw error;
  }
}
