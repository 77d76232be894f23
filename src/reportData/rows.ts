// Runs the grouping's query and turns summed facts into rows of spec §2.5, sorted as asked.
import type { Context } from '../context.ts';
import type { Sql } from '../database.ts';
import { beforeDeadline } from '../deadline.ts';
import { query } from '../queries.ts';
import { rowMetrics, type Sums } from './metrics.ts';
import type { PreparedData } from './prepare.ts';

export type DataRow = { dimensions: Record<string, unknown>; metrics: Record<string, number | null> };

type SumRow = Sums & { dimensions: Record<string, unknown>; name: string; key: string };

const today = (now: number) => new Date(now).toISOString().slice(0, 10);

/** The inclusive day range read: as asked, or for a months report without dates, everything it holds. */
export async function dayRange(sql: Sql, ctx: Context, data: PreparedData, now: number): Promise<{ from: string; to: string }> {
  let { dateFrom: from, dateTo: to } = data.params;
  if (!from || !to) {
    const [span] = await beforeDeadline(ctx, query<{ first: string | null; last: string | null }>(sql, 'get-report-span', [data.accountIds, data.campaignIds]));
    from ??= span.first ?? today(now);
    to ??= span.last ?? today(now);
    if (from > to) from = to;
  }
  return { from, to };
}

export async function dataRows(sql: Sql, ctx: Context, data: PreparedData, range: { from: string; to: string }): Promise<DataRow[]> {
  // DECISIONS §6: adAccountIds that name nothing the report holds narrow to nothing: no rows, not a zero row.
  if (data.accountIds.length === 0) return [];
  const params: unknown[] = [data.accountIds, data.campaignIds, range.from, range.to, data.scope.currency, data.params.nameFilter || null];
  if (data.grouping === 'segment') params.push(data.segmentIds);
  if (data.grouping === 'video' || data.grouping === 'creative') params.push(data.grouping === 'video');
  const file = data.grouping === 'video' ? 'report-data-creative' : `report-data-${data.grouping}`;
  const sums = await beforeDeadline(ctx, query<SumRow>(sql, file, params as never[]));
  const rows = sums.map((row) => ({ name: row.name, key: row.key, dimensions: row.dimensions, metrics: rowMetrics(row, data.metrics) }));
  const sort = data.params.sort;
  if (sort !== undefined) {
    const direction = data.params.sortDesc ? -1 : 1;
    // Nulls last whichever the direction; ties keep the name order.
    rows.sort((a, b) => {
      const x = a.metrics[sort];
      const y = b.metrics[sort];
      if (x === y) return 0;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x - y) * direction;
    });
  }
  return rows.map(({ dimensions, metrics }) => ({ dimensions, metrics }));
}
