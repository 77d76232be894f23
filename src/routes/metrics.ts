// GET /v1/metrics and /v1/organizations/{id}/metrics: the metric catalogue (spec §2.6, DECISIONS §5).
import type { Context } from '../context.ts';
import type { Sql } from '../database.ts';
import { listPage, pagingEntries } from '../paging.ts';
import { readQuery } from '../queryParams.ts';

export function systemMetrics(sql: Sql) {
  return function listSystemMetrics(ctx: Context): Promise<Response> {
    return listPage(sql, 'list-system-metrics', readQuery(ctx, pagingEntries));
  };
}
