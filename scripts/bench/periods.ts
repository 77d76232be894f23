// npm run bench -- --only periods: answers by interval (docs/decisions.md §6). Campaign × day over the whole range,
// as a warehouse job's first load asks for it, and the shapes users add to it (a week, a custom metric, a sort, a
// filter, money converted), served as whole downloads; total × day against the total.
import { tokenFor } from './dataSet.ts';
import { f, log, noResult, type PartResult } from './harness.ts';
import { clean, download, errorNote, load, peakRss } from './measure.ts';
import { DATA_C, type Setup } from './setup.ts';

export const TARGETS = {
  served: { name: 'campaign × day, 400 days ≥ 200,000 rows/s served', bound: 200_000 },
  filtered: { name: 'campaign × day filtered, every row kept: rows/s ≥ 1/1.3 of the plain answer', bound: 1.3 },
  totalDays: { name: 'total × day p50 ≤ 2× groupBy=total', bound: 2 },
  memory: { name: 'campaign × day answer peak RSS within 64 MB of idle', bound: 64 },
};

export async function periodsPart(setup: Setup): Promise<PartResult> {
  const { sql, server, converted, days, dataUrl, auth, token, idleRss } = setup;
  const result = noResult();
  const { rows, after, targets } = result;
  // docs/decisions.md §6, interval: campaign × day over the whole range, as a warehouse job's first load asks for it,
  // and the shapes users add to it (a week, a custom metric, a sort, money converted); total × day against the total.
  const rowsOf = async (url: string, headers: Record<string, string>) =>
    (await (await fetch(url, { headers })).json()).rows.length as number;
  const shapes: [string, string, Record<string, string>][] = [
    ['campaign × day', `${dataUrl('campaign')}&interval=day`, auth],
    [
      'campaign × day with a custom metric',
      `${dataUrl('campaign')}&interval=day&metrics=impressions,clicks,spend,ctr,engagement`,
      auth,
    ],
    ['campaign × day sorted by clicks', `${dataUrl('campaign')}&interval=day&sort=clicks&sortDesc=true`, auth],
    // Filters every row passes: the same rows, their values bound (copyOut.ts).
    [
      'campaign × day filtered (spend>=0, a name =@)',
      `${dataUrl('campaign')}&interval=day&filter=spend>=0&filter=campaignName=@campaign`,
      auth,
    ],
    ['campaign × week', `${dataUrl('campaign')}&interval=week`, auth],
    ['creative × month', `${dataUrl('creative')}&interval=month`, auth],
  ];
  if (converted) {
    const [{ last: convertedLast }] =
      await sql`select max(day)::text as last from facts where organization_id = ${converted.org}`;
    const convertedFrom = new Date(Date.parse(convertedLast) - (days - 1) * 86_400_000).toISOString().slice(0, 10);
    const convertedAuth = { authorization: `Bearer ${await tokenFor(server.url, converted.client)}` };
    shapes.push([
      'campaign × day, EUR report over USD, EUR and GBP accounts',
      `${server.url}/v1/reports/${converted.report}/data?dateFrom=${convertedFrom}&dateTo=${convertedLast}&groupBy=campaign&interval=day`,
      convertedAuth,
    ]);
  }
  // An answer of hundreds of thousands of rows outlasts a scenario at c=4: each shape is served as whole downloads,
  // DATA_C at once, twice over; rows/s served is all their rows over the wall time.
  let campaignDays = 0;
  let campaignServed = 0;
  let filteredServed = 0;
  for (const [name, url, headers] of shapes) {
    log(`periods: ${name}`);
    const n = await rowsOf(url, headers);
    const bearerOf = headers.authorization.slice('Bearer '.length);
    const t0 = performance.now();
    const times: number[] = [];
    const { peak } = await peakRss(server.pid, () =>
      Promise.all(
        Array.from({ length: DATA_C }, async () => {
          for (let i = 0; i < 2; i++) times.push((await download(url, bearerOf, server.pid)).seconds * 1000);
        }),
      ),
    );
    const served = (2 * DATA_C * n) / ((performance.now() - t0) / 1000);
    times.sort((a, b) => a - b);
    rows.push([
      `data ${name}, ${days} days, ${f(n)} rows an answer, ${2 * DATA_C} downloads ${DATA_C} at once (${f(served)} rows/s served)`,
      {
        rps: (2 * DATA_C) / ((performance.now() - t0) / 1000),
        p50: times[Math.floor((times.length - 1) / 2)],
        p99: times[times.length - 1],
        peakRss: peak,
      },
    ]);
    if (name === 'campaign × day') (campaignDays = n), (campaignServed = served);
    if (name.startsWith('campaign × day filtered')) filteredServed = served;
  }
  log('periods: total × day against total');
  const totalRun = await load(dataUrl('total'), server.pid, DATA_C, auth);
  const totalDays = await load(`${dataUrl('total')}&interval=day`, server.pid, DATA_C, auth);
  rows.push(
    [`data groupBy=total, ${days} days (c=${DATA_C})`, totalRun],
    [`data total × day, ${days} days (c=${DATA_C})`, totalDays],
  );
  const oneAnswer = await download(`${dataUrl('campaign')}&interval=day`, token, server.pid);
  after.push(
    `| one campaign × day answer, ${f(campaignDays)} rows, read whole | ${f(campaignDays / oneAnswer.seconds)} rows/s | ${f(oneAnswer.seconds * 1000)} total | | ${f(oneAnswer.peak)} |`,
  );
  targets.push(
    [
      TARGETS.served.name,
      `${f(campaignServed)} rows/s (${f(campaignDays)} rows an answer, ${DATA_C} at once)`,
      campaignServed >= TARGETS.served.bound,
    ],
    [
      TARGETS.filtered.name,
      `${f(campaignServed / filteredServed, 2)}× slower (${f(filteredServed)} rows/s)`,
      filteredServed * TARGETS.filtered.bound >= campaignServed,
    ],
    [
      TARGETS.totalDays.name,
      `${f(totalDays.p50 / totalRun.p50, 2)}× (${f(totalDays.p50, 1)} ms against ${f(totalRun.p50, 1)} ms)${errorNote(totalRun, totalDays)}`,
      totalDays.p50 <= TARGETS.totalDays.bound * totalRun.p50 && clean(totalRun, totalDays),
    ],
    [
      TARGETS.memory.name,
      `${oneAnswer.peak >= idleRss ? '+' : ''}${f(oneAnswer.peak - idleRss)} MB`,
      oneAnswer.peak - idleRss <= TARGETS.memory.bound,
    ],
  );
  return result;
}
