// The request deadline (spec §8, DECISIONS §6): work still running at REQUEST_DEADLINE_MS is cancelled, SQL included.
import type { Context } from './context.ts';
import { ApiError } from './problem.ts';

export const requestTimeout = () =>
  new ApiError('request-timeout', 'The request hit its deadline and was cancelled. Retry with a shorter range, fewer ad accounts or a smaller page.');

type Cancellable<T> = PromiseLike<T> & { cancel(): unknown };

/** Runs a postgres.js query that is cancelled on the server when the request's deadline passes. */
export async function beforeDeadline<T>(ctx: Context, pending: Cancellable<T>): Promise<T> {
  const signal = ctx.deadline;
  const cancel = () => pending.cancel();
  if (signal.aborted) {
    cancel();
    throw requestTimeout();
  }
  signal.addEventListener('abort', cancel, { once: true });
  try {
    return await pending;
  } catch (error) {
    if (signal.aborted) throw requestTimeout();
    throw error;
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}
