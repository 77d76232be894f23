// Report data and exports: a bounded number at once per client, each on a connection of its own
// (docs/decisions.md §13). Cheap requests (tokens, /v1/me, lists, definitions, charges, health) keep the shared pool
// to themselves, so they never wait behind a download however many are open.
import type { Context } from '../http/context.ts';
import { requestTimeout } from '../http/deadline.ts';
import type { Lent } from '../store/exclusive.ts';
import type { Admitted } from '../http/caller.ts';
import { ApiError } from '../http/problem.ts';
import type { LogLine } from '../http/requestLog.ts';

export type HeavyLane = {
  /**
   * The request's own connection, given back when the answer is over: reused only if read to its end. Asked for once
   * a request knows it must read facts (a 304 never does); a client already running its limit is refused with 429,
   * and its charge given back.
   */
  connection(ctx: Context, caller: Admitted): Promise<Lent>;
};

/**
 * stallMs: a streamed answer whose reader takes nothing this long is cut, its connection given back, and a line
 * written to log that says so.
 */
export function heavyLane(perClient: number, stallMs: number, log: (line: LogLine) => void): HeavyLane {
  const running = new Map<string, number>();
  /** A client already running its limit of heavy requests is refused; otherwise it holds a place until done. */
  function admit(ctx: Context, clientId: string) {
    const now = running.get(clientId) ?? 0;
    if (now >= perClient) {
      ctx.refundCharge = true;
      throw new ApiError(
        'rate-limit-exceeded',
        `This client already has ${perClient} report data or export requests under way, the most it may run at once; ` +
          `retry when one has finished.`,
        { retryAfterSeconds: 1 },
      );
    }
    running.set(clientId, now + 1);
    ctx.onDone(() => {
      const left = running.get(clientId)! - 1;
      if (left > 0) running.set(clientId, left);
      else running.delete(clientId);
    });
  }

  return {
    async connection(ctx, { principal, reads }) {
      admit(ctx, principal.clientId);
      ctx.stall = {
        ms: stallMs,
        cut: () =>
          log({
            time: new Date().toISOString(),
            msg: 'download cut',
            reason: `its reader took nothing for ${stallMs / 1000} s`,
            path: ctx.path,
            clientId: principal.clientId,
            traceId: ctx.trace.traceId,
          }),
      };
      const deadline = ctx.deadline;
      // The standby the request reads from, if it reads from one, lends the connection; otherwise the primary.
      const from = reads.heavy;
      let lent: Lent;
      try {
        lent = await from.lend(deadline, principal.organizationId);
      } catch (error) {
        if (deadline.aborted) throw requestTimeout();
        throw error;
      }
      // At the deadline the connection is given up at once, whatever it is doing: its backend ends on the server.
      const abandon = () => lent.abandon();
      deadline.addEventListener('abort', abandon, { once: true });
      ctx.onDone(() => {
        deadline.removeEventListener('abort', abandon);
        from.giveBack(lent, !deadline.aborted);
      });
      return lent;
    },
  };
}
