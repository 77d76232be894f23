// GET /v1/health: liveness, and whether the database answers (DECISIONS §8).
import type { Sql } from '../database.ts';
import { query } from '../queries.ts';
import { JSON_TYPE, respond } from '../respond.ts';
import type { DirectAnswer } from '../serve/types.ts';
import { withTimeout } from '../timeout.ts';

const HEALTH_TIMEOUT_MS = 2000;
/** The database is asked at most this often; every caller in between shares the answer (and a check under way). */
const RECHECK_AFTER_MS = 250;

/** The recheck interval is wall time, not the app's (testable) clock: it is about the database, not the business. */
export function health(sql: Sql, clock: () => number = () => performance.now()) {
  let checkedAt = -Infinity;
  let up = false;
  let checking: Promise<void> | undefined;
  const check = () =>
    (checking ??= withTimeout(query(sql, 'check-health'), HEALTH_TIMEOUT_MS)
      .then(() => true, () => false)
      .then((ok) => {
        up = ok;
        checkedAt = clock();
        checking = undefined;
      }));
  const answer = (): DirectAnswer =>
    up
      ? { status: 200, body: OK_BODY, headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store' } }
      : { status: 503, body: DOWN_BODY, headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store', 'retry-after': '5' } };
  async function getHealth(): Promise<Response> {
    if (clock() - checkedAt >= RECHECK_AFTER_MS) await check();
    const { status, body, headers } = answer();
    return respond(body, { status, headers: { ...headers } });
  }
  /** The answer when no database check is due, with nothing awaited; undefined when one is. */
  const current = (): DirectAnswer | undefined => (clock() - checkedAt >= RECHECK_AFTER_MS ? undefined : answer());
  return Object.assign(getHealth, { current });
}

const OK_BODY = JSON.stringify({ status: 'ok' });
const DOWN_BODY = JSON.stringify({ status: 'unavailable' });
