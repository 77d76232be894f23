// GET /v1/health: liveness, and whether the database answers (DECISIONS §8).
import type { Sql } from '../database.ts';
import { query } from '../queries.ts';
import { json } from '../respond.ts';

const HEALTH_TIMEOUT_MS = 2000;

export function health(sql: Sql) {
  return async function getHealth(): Promise<Response> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('health check timed out')), HEALTH_TIMEOUT_MS);
    });
    try {
      await Promise.race([query(sql, 'check-health'), timeout]);
      return json({ status: 'ok' }, { headers: { 'cache-control': 'no-store' } });
    } catch {
      return json({ status: 'unavailable' }, { status: 503, headers: { 'cache-control': 'no-store', 'retry-after': '5' } });
    } finally {
      clearTimeout(timer);
    }
  };
}
