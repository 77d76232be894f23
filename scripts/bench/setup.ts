// What the bench's parts share (npm run bench): the server as \`npm start\` runs it, the data sets, a client's token for
// each, the bare node:http floor, and the server's memory once warm. Built once a run, before the parts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sql } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openDatabase } from '../../src/store/open.ts';
import { dataSet, segmentReport, tokenFor, type DataSet } from './dataSet.ts';
import { embedded, log, pin, processes, runs, scale, serverCommand, start, type Proc } from './harness.ts';
import { load, rssMb } from './measure.ts';

/** Data answers run at this concurrency. */
export const DATA_C = 4;
/** The main data set's days. */
export const DAYS = 400;

export type Setup = Awaited<ReturnType<typeof setUp>>;

/** Builds what the parts share; close() stops the servers and closes the database. */
export async function setUp() {
  const dataDir = embedded ? mkdtempSync(join(tmpdir(), 'readout-bench-')) : undefined;
  // An embedded run's server must not inherit DATABASE_URL from the shell: it would serve a database the bench never
  // filled. Ten data answers at once from one client (the memory scenario) need a per-client limit above the default 4.
  const serverEnv = {
    PORT: '0',
    DEMO: 'off',
    HEAVY_PER_CLIENT: '10',
    HEAVY_CONNECTIONS: process.env.HEAVY_CONNECTIONS,
    ...(embedded ? { DATA_DIR: dataDir!, DATABASE_URL: undefined } : { DATABASE_URL: process.env.DATABASE_URL! }),
  };
  const server = await start(pin(0, serverCommand()), serverEnv);
  processes.push(server);
  const db = await openDatabase(embedded ? { dataDir } : { databaseUrl: process.env.DATABASE_URL });
  const sql: Sql = db.sql;
  await migrate(sql);
  const days = DAYS;
  const main = await dataSet(sql, `Bench ${scale}`, {
    accounts: 20,
    campaigns: Math.round(2000 * scale),
    creatives: Math.round(10000 * scale),
    days,
  });
  const exportRows = Math.round(1_048_575 * scale);
  const big = await dataSet(sql, `Bench export ${scale}`, {
    accounts: 20,
    campaigns: Math.round(2000 * scale),
    creatives: exportRows,
    days: 1,
  });
  // The same shape with accounts in USD, EUR and GBP (daily ECB rates for EUR and GBP) and its report in EUR: every
  // grouping converts, and is measured against the one-currency report above.
  const converted =
    runs('currencies') || runs('periods') || runs('dashboards')
      ? await dataSet(
          sql,
          `Bench currencies ${scale}`,
          { accounts: 20, campaigns: Math.round(2000 * scale), creatives: Math.round(10000 * scale), days },
          { currencies: ['USD', 'EUR', 'GBP'], reportCurrency: 'EUR' },
        )
      : undefined;
  const segments = await segmentReport(sql, main.org);
  const token = await tokenFor(server.url, main.client);
  const segmentToken = await tokenFor(server.url, segments.client);
  const exportToken = await tokenFor(server.url, big.client);
  const bare = await start(pin(0, ['node', '--import', 'tsx', 'scripts/bareServer.ts']), {});
  processes.push(bare);
  // Warmed as the servers it is the floor for are: a cold first round read half its pace and flattered the ratio.
  if (runs('http')) await load(`${bare.url}/`, bare.pid, 8, {}, 2);

  // The data set's own 400 days, wherever they fall: it may have been generated on an earlier day.
  const [{ last }] = await sql`select max(day)::text as last from facts where organization_id = ${main.org}`;
  const lastDay = last as string;
  const from = new Date(Date.parse(lastDay) - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  const range = `dateFrom=${from}&dateTo=${lastDay}`;
  const auth = { authorization: `Bearer ${token}` };
  const dataUrl = (groupBy: string) => `${server.url}/v1/reports/${main.report}/data?${range}&groupBy=${groupBy}`;

  log('warming up');
  await load(`${server.url}/v1/reports`, server.pid, 8, auth, 2);
  /** One untimed answer, read to its end: what a scenario reads comes from memory, not disk, when it is timed. */
  const warm = (url: string, headers = auth) => fetch(url, { headers }).then((res) => res.arrayBuffer());
  // One whole answer first: a cold first answer can outlast the warm-up load, which would then finish nothing.
  await warm(dataUrl('campaign'));
  await load(dataUrl('campaign'), server.pid, 2, auth, 2);
  const idleRss = rssMb(server.pid);
  const close = async () => {
    for (const p of processes) p.child.kill('SIGTERM');
    await db.close();
    if (dataDir) setTimeout(() => rmSync(dataDir, { recursive: true, force: true }), 1000);
  };
  return {
    sql,
    server,
    bare,
    serverEnv,
    main,
    big,
    converted,
    segments,
    token,
    segmentToken,
    exportToken,
    days,
    lastDay,
    from,
    range,
    auth,
    dataUrl,
    warm,
    idleRss,
    close,
  };
}

export type { DataSet, Proc };
