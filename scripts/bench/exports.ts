// npm run bench -- --only exports: a day of a million creatives as CSV and XLSX, beside the floors of its own SQL
// (a postgres.js cursor, and PostgreSQL's own CSV); ten 100,000-row data answers at once, and their memory.
import type { Sql } from '../../src/store/database.ts';
import { EXPORT_SETTINGS } from '../../src/report/formats/copyStatement.ts';
import { groupingFile } from '../../src/report/query.ts';
import { inlinedQueryText, queryAs } from '../../src/store/queries.ts';
import { benchClient, tokenFor } from './dataSet.ts';
import { embedded, f, log, noResult, type PartResult } from './harness.ts';
import { download, peakRss, rssMb } from './measure.ts';
import type { Setup } from './setup.ts';

export const TARGETS = {
  csv: { name: 'CSV ≥ 300,000 rows/s', bound: 300_000 },
  xlsx: { name: 'XLSX inside 30 s', bound: 30 },
  exportMemory: { name: 'export peak RSS within 64 MB of idle', bound: 64 },
  dataMemory: { name: 'ten concurrent 100,000-row custom-metric answers add < 100 MB', bound: 100 },
  shapedMemory: {
    name: 'ten concurrent 100,000-row answers with a summary and a comparison add < 100 MB',
    bound: 100,
  },
};

/**
 * What the database alone takes to produce the CSV export's rows: read through a postgres.js cursor as the server
 * reads them, and (PostgreSQL only) written by PostgreSQL itself as CSV, with no per-row work in Node at all.
 */
async function exportFloors(sql: Sql, accounts: string[], day: string, embedded: boolean) {
  const params = {
    accountIds: accounts,
    campaignIds: null,
    from: day,
    to: day,
    currency: 'USD',
    nameFilter: null,
    video: false,
  };
  let t0 = performance.now();
  // The files the server picks for this range (a day: the join-first one; for CSV, all in one currency, the one
  // read from facts directly) and, for COPY, the CSV export's own settings.
  const range = { from: day, to: day };
  for await (const _ of queryAs(sql, groupingFile('creative', range), params).cursor(1000));
  const cursor = (performance.now() - t0) / 1000;
  if (embedded) return { cursor };
  // COPY takes no parameters: the same query with them written in, as the server's CSV export writes them.
  const text = inlinedQueryText(groupingFile('creative', range, true), params);
  t0 = performance.now();
  for await (const _ of await sql.unsafe(`${EXPORT_SETTINGS}; copy (\n${text}\n) to stdout (format csv)`).readable());
  return { cursor, copy: (performance.now() - t0) / 1000 };
}

export async function exportsPart(setup: Setup): Promise<PartResult> {
  const { sql, server, big, exportToken, idleRss } = setup;
  const result = noResult();
  const { after, targets } = result;
  // The export data set is one day of facts: the day it was generated on, which a later run must reuse.
  const [{ day, n: exported }] =
    await sql`select max(day)::text as day, count(*)::int as n from facts where organization_id = ${big.org}`;
  log(`exports of ${exported} rows`);
  const exportUrl = (ext: string) =>
    `${server.url}/v1/reports/${big.report}/export.${ext}?dateFrom=${day}&dateTo=${day}&groupBy=creative`;
  // One download first, untimed, as every load scenario has its warm-up: the export's million facts and creatives
  // are read from disk once, not in the timed run only (the COPY floor below always ran warm, after it). Its time is
  // shown, and its peak RSS counts.
  log('export warm-up');
  const first = await download(exportUrl('csv'), exportToken, server.pid);
  const csv = await download(exportUrl('csv'), exportToken, server.pid);
  const xlsx = await download(exportUrl('xlsx'), exportToken, server.pid);
  const floors = await exportFloors(sql, big.accounts, day, embedded);
  const exportPeak = Math.max(first.peak, csv.peak, xlsx.peak);
  after.push(
    `| export.csv, ${f(exported)} rows, first download (warm-up, not the target's) | ${f(exported / first.seconds)} rows/s | ${f(first.seconds * 1000)} total | | ${f(first.peak)} |`,
  );
  after.push(
    `| export.csv, ${f(exported)} rows | ${f(exported / csv.seconds)} rows/s | ${f(csv.seconds * 1000)} total | | ${f(csv.peak)} |`,
  );
  after.push(
    `| export.xlsx, ${f(exported)} rows | ${f(exported / xlsx.seconds)} rows/s | ${f(xlsx.seconds * 1000)} total | | ${f(xlsx.peak)} |`,
  );
  after.push(
    `| the export's own SQL read through a postgres.js cursor (floor) | ${f(exported / floors.cursor)} rows/s | ${f(floors.cursor * 1000)} total | | |`,
  );
  if (floors.copy)
    after.push(
      `| the export's own SQL as PostgreSQL's own CSV, COPY … TO STDOUT (floor) | ${f(exported / floors.copy)} rows/s | ${f(floors.copy * 1000)} total | | |`,
    );
  // Ten data answers of about 100,000 rows each at once (the export set's creatives of enough ad accounts): the
  // answers are streamed from a cursor a batch at a time, so memory holds batches, not answers.
  const accountsFor100k = Math.min(big.accounts.length, Math.ceil((big.accounts.length * 100_000) / exported));
  // With a custom metric, from three clients (4 + 3 + 3), as a dashboard's users would ask.
  const bigData = `${server.url}/v1/reports/${big.report}/data?dateFrom=${day}&dateTo=${day}&groupBy=creative&metrics=impressions,clicks,spend,ctr,engagement&adAccountIds=${big.accounts.slice(0, accountsFor100k).join(',')}`;
  const dataTokens = [
    exportToken,
    ...(await Promise.all([1, 2].map(async () => tokenFor(server.url, await benchClient(sql, big.org, big.report))))),
  ];
  log('ten data answers of 100,000 rows with a custom metric at once, from three clients');
  await fetch(bigData, { headers: { authorization: `Bearer ${exportToken}` } }).then((res) => res.arrayBuffer());
  const dataIdle = rssMb(server.pid);
  const tenData = await peakRss(server.pid, () =>
    Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const res = await fetch(bigData, { headers: { authorization: `Bearer ${dataTokens[i % 3]}` } });
        const body = await res.json();
        return res.status === 200 ? (body.rows.length as number) : -1;
      }),
    ),
  );
  const dataRowsEach = Math.min(...tenData.result);
  after.push(
    `| ten data answers with a custom metric at once, three clients, ${f(dataRowsEach)} rows each | | | | ${f(tenData.peak)} |`,
  );
  // The same with a summary and a comparison range (the day before: every row's other side is zeros).
  const dayBefore = new Date(Date.parse(day) - 86_400_000).toISOString().slice(0, 10);
  const shapedData = `${bigData}&summary=true&compareFrom=${dayBefore}&compareTo=${dayBefore}`;
  log('the same ten with a summary and a comparison range');
  await fetch(shapedData, { headers: { authorization: `Bearer ${exportToken}` } }).then((res) => res.arrayBuffer());
  const shapedIdle = rssMb(server.pid);
  const tenShaped = await peakRss(server.pid, () =>
    Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const res = await fetch(shapedData, { headers: { authorization: `Bearer ${dataTokens[i % 3]}` } });
        const body = await res.json();
        return res.status === 200 && body.summary ? (body.rows.length as number) : -1;
      }),
    ),
  );
  const shapedRowsEach = Math.min(...tenShaped.result);
  after.push(
    `| the same with a summary and a comparison range, ${f(shapedRowsEach)} rows each | | | | ${f(tenShaped.peak)} |`,
  );
  targets.push([
    TARGETS.shapedMemory.name,
    `+${f(tenShaped.peak - shapedIdle)} MB over ${f(shapedIdle)} MB (${f(shapedRowsEach)} rows each)`,
    tenShaped.peak - shapedIdle < TARGETS.shapedMemory.bound &&
      shapedRowsEach >= 100_000 * Math.min(1, exported / 100_000) * 0.9,
  ]);
  targets.push(
    [TARGETS.csv.name, `${f(exported / csv.seconds)} rows/s`, exported / csv.seconds >= TARGETS.csv.bound],
    [
      TARGETS.dataMemory.name,
      `+${f(tenData.peak - dataIdle)} MB over ${f(dataIdle)} MB (${f(dataRowsEach)} rows each)`,
      tenData.peak - dataIdle < TARGETS.dataMemory.bound &&
        dataRowsEach >= 100_000 * Math.min(1, exported / 100_000) * 0.9,
    ],
    [`${TARGETS.xlsx.name} (${f(exported)} rows)`, `${f(xlsx.seconds, 1)} s`, xlsx.seconds <= TARGETS.xlsx.bound],
    [
      TARGETS.exportMemory.name,
      `${exportPeak >= idleRss ? '+' : ''}${f(exportPeak - idleRss)} MB`,
      exportPeak - idleRss <= TARGETS.exportMemory.bound,
    ],
  );
  return result;
}
