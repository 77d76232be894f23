// GET /v1/health: liveness, and whether the database answers (docs/decisions.md §8).
import type { Answer } from '../http/answer.ts';
import { query, type Queryable } from '../store/queries.ts';
import { JSON_TYPE, respond } from '../http/respond.ts';
import type { DirectAnswer } from '../http/incoming.ts';
import { withTimeout } from '../store/timeout.ts';
import { VERSION } from '../config.ts';

const HEALTH_TIMEOUT_MS = 2000;
/** The embedded database busy with a long write: how long a check waits before it answers from the last one. */
const BUSY_WAIT_MS = 250;
/** The database is asked at most this often; every caller in between shares the answer (and a check under way). */
const RECHECK_AFTER_MS = 250;

/**
 * busyIsUp: the embedded database, one session in this very process. A check queued behind a long write (an import)
 * says it is busy, not down: the process serves, so liveness stays 200 and the check answers from the last one; only
 * a check that fails says down. On PostgreSQL a check with no answer in 2 s is down.
 * The recheck interval is wall time, not the app's (testable) clock: it is about the database, not the business.
 */
export function health(sql: Queryable, clock: () => number = () => performance.now(), { busyIsUp = false } = {}) {
  let checkedAt = -Infinity;
  let up = false;
  /** The database's own answer to the last question, however long it takes: one at a time. */
  let asking: Promise<boolean> | undefined;
  let checking: Promise<void> | undefined;
  const ask = () =>
    (asking ??= query(sql, 'check-health').then(
      () => ((asking = undefined), true),
      () => ((asking = undefined), false),
    ));
  const check = () =>
    (checking ??= withTimeout(ask(), busyIsUp ? BUSY_WAIT_MS : HEALTH_TIMEOUT_MS)
      .then(
        (ok) => ok,
        () => busyIsUp && up,
      )
      .then((ok) => {
        up = ok;
        checkedAt = clock();
        checking = undefined;
      }));
  async function getHealth(): Promise<Answer> {
    if (clock() - checkedAt >= RECHECK_AFTER_MS) await check();
    const { status, body, headers } = up ? UP : DOWN;
    return respond(body, { status, headers: { ...headers } });
  }
  /** The answer when no database check is due, with nothing awaited; undefined when one is. */
  const current = (): DirectAnswer | undefined =>
    clock() - checkedAt >= RECHECK_AFTER_MS ? undefined : up ? UP.direct : DOWN.direct;
  return Object.assign(getHealth, { current });
}

/** Both answers made once: the pipeline's headers, and the same as a direct answer's flat list. */
function answer(status: number, value: unknown, headers: Record<string, string>) {
  const body = JSON.stringify(value);
  const length = String(new TextEncoder().encode(body).length);
  return {
    status,
    body,
    headers,
    direct: { status, body, headers: ['content-length', length, ...Object.entries(headers).flat()] },
  };
}

const UP = answer(200, { status: 'ok', version: VERSION }, { 'content-type': JSON_TYPE, 'cache-control': 'no-store' });
const DOWN = answer(
  503,
  { status: 'unavailable', version: VERSION },
  { 'content-type': JSON_TYPE, 'cache-control': 'no-store', 'retry-after': '5' },
);
