// GET /v1/health: liveness, and whether the database answers (DECISIONS §8).
import type { Sql } from '../database.ts';
import { query } from '../queries.ts';
import { json } from '../respond.ts';
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
  return async function getHealth(): Promise<Response> {
    if (clock() - checkedAt >= RECHECK_AFTER_MS) await check();
    return up
      ? json({ status: 'ok' }, { headers: { 'cache-control': 'no-store' } })
      : json({ status: 'unavailable' }, { status: 503, headers: { 'cache-control': 'no-store', 'retry-after': '5' } });
  };
}
