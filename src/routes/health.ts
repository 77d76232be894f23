// GET /v1/health: liveness, and whether the database answers (DECISIONS §8).
import type { Sql } from '../database.ts';
import { query } from '../queries.ts';
import { json } from '../respond.ts';
import { withTimeout } from '../timeout.ts';

const HEALTH_TIMEOUT_MS = 2000;

export function health(sql: Sql) {
  return async function getHealth(): Promise<Response> {
    try {
      await withTimeout(query(sql, 'check-health'), HEALTH_TIMEOUT_MS);
      return json({ status: 'ok' }, { headers: { 'cache-control': 'no-store' } });
    } catch {
      return json({ status: 'unavailable' }, { status: 503, headers: { 'cache-control': 'no-store', 'retry-after': '5' } });
    }
  };
}
