// GET /v1/reports/{id}/export.csv and export.xlsx: the data endpoint's rows as files (docs/decisions.md §7).
import type { Answer } from '../http/answer.ts';
import type { Context } from '../http/context.ts';
import type { HeavyLane } from '../report/lane.ts';
import { query } from '../store/queries.ts';
import { cellsOfNothing, csvStream, streamCsv } from '../report/formats/csv.ts';
import { streamSheetRows, xlsxStream } from '../report/formats/xlsx.ts';
import { notModified, prepareData, type PreparedData } from '../report/prepare.ts';
import { dataCost, type ReportCall, type ReportRequest } from '../report/request.ts';
import { dayRange } from '../report/query.ts';
import { respond } from '../http/respond.ts';
import { streamedResponse } from '../http/streamed.ts';
import { dataHeaders } from './reportData.ts';

const FORMATS = {
  csv: { type: 'text/csv; charset=utf-8', write: csvStream },
  xlsx: { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', write: xlsxStream },
} as const;

/** A file name of safe characters only: the report's name and the range. */
function fileName(data: PreparedData, range: { from: string; to: string }, ext: string) {
  const base =
    data.scope.name
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 80) || 'report';
  return `${base}-${range.from}-${range.to}.${ext}`;
}

/** docs/decisions.md §4: an export costs twice its data. */
export const exportCost = (report: ReportRequest) => 2 * dataCost(report);

export function reportExport(clock: () => number, lane: HeavyLane, format: keyof typeof FORMATS) {
  return async function getReportExport(ctx: Context, call: ReportCall): Promise<Answer> {
    const data = await prepareData(ctx, call, format);
    if (notModified(ctx.request, data.etag)) return respond(null, { status: 304, headers: dataHeaders(data) });
    const names = await query(call.reads.sql, 'list-metric-display-names', { org: call.principal.organizationId });
    const lent = await lane.connection(ctx, call);
    const range = await dayRange(lent, ctx, data, clock());
    const rows = (format === 'csv' ? streamCsv : streamSheetRows)(lent, ctx, data, range) ?? cellsOfNothing(data);
    const displayNames = new Map(names.map((n) => [n.name, n.display_name]));
    // The deadline covers the whole download, and the connection is given back when it ends (streamed.ts).
    const sheet = {
      keys: data.keys,
      metrics: data.metrics.map((m) => m.name),
      compared: data.compared,
      kinds: data.metrics.map((m) => m.kind),
      displayNames,
      rows,
    };
    const body = FORMATS[format].write(sheet);
    return streamedResponse(ctx, body, {
      status: 200,
      headers: {
        ...dataHeaders(data),
        'content-type': FORMATS[format].type,
        'content-disposition': `attachment; filename="${fileName(data, range, format)}"`,
      },
    });
  };
}
