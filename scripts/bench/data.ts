// npm run bench -- --only data: report data answers. The campaign grouping through HTTP and as its own SQL in
// interleaved rounds, with a custom metric and sorted; every grouping against a naive GROUP BY of the raw facts; the
// 304 of an unchanged answer against a list of reports.
import { BASE_METRICS } from '../../src/report/metrics.ts';
import { queryAs } from '../../src/store/queries.ts';
import { SEGMENTS } from './dataSet.ts';
import { duration, f, log, noResult, rounds, type PartResult, type Target } from './harness.ts';
import { clean, errorNote, load, loop, median, medianRun, type Load } from './measure.ts';
import { DATA_C, type Setup } from './setup.ts';

export const TARGETS = {
  custom: { name: 'custom-metric campaign answer p50 ≤ 1.3× the plain one', bound: 1.3 },
  sorted: { name: 'sorted campaign answer p50 ≤ 1.3× the plain one', bound: 1.3 },
  notModified: { name: '304 ≥ 50 % of /v1/reports', bound: 0.5 },
  campaignNaive: { name: 'data campaign p50 ≤ 1/5 of the naive GROUP BY', bound: 5 },
  overhead: { name: "HTTP overhead over the endpoint's own SQL ≤ 15 %", bound: 0.15 },
  notModifiedVsData: { name: '304 ≥ 10× data throughput', bound: 10 },
};

/** Each grouping's answer at least this many times faster than its naive GROUP BY of the raw facts (issue 56). */
export const NAIVE_BOUNDS: Record<string, Target> = Object.fromEntries(
  (
    [
      ['campaign', 40],
      ['total', 100],
      ['month', 100],
      ['ad-account', 40],
      ['segment', 40],
      ['creative', 20],
      ['video', 20],
    ] as const
  ).map(([groupBy, bound]) => [
    groupBy,
    { name: `data ${groupBy} p50 ≥ ${bound}× faster than its naive GROUP BY`, bound },
  ]),
);

/** Each grouping's answer as a GROUP BY of the raw facts ($1 accounts, $2 from, $3 to). */
function naiveSql(groupBy: string): string {
  const sums = BASE_SUMS.map((name) => `sum(f.${name}) as ${name}`).join(', ');
  const key = {
    total: '',
    month: "date_trunc('month', f.day)",
    campaign: 'f.campaign_id',
    'ad-account': 'f.ad_account_id',
    segment: 'sc.segment_id',
    creative: 'f.creative_id',
    video: 'f.creative_id',
  }[groupBy];
  const join = {
    segment: 'join segment_campaigns sc on sc.campaign_id = f.campaign_id',
    video: "join creatives cr on cr.id = f.creative_id and cr.format = 'video'",
  }[groupBy as 'segment' | 'video'];
  return (
    `select ${key ? `${key} as key, ` : ''}${sums} from facts f ${join ?? ''} ` +
    `where f.ad_account_id = any($1::uuid[]) and f.day between $2 and $3${key ? ` group by ${key}` : ''}`
  );
}
const BASE_SUMS = BASE_METRICS;

export async function dataPart(setup: Setup): Promise<PartResult> {
  const { sql, server, main, auth, dataUrl, warm, segments, segmentToken, range, from, lastDay, days } = setup;
  const result = noResult();
  const { rows, targets } = result;
  const groupings: Record<string, Load> = {};
  // The campaign grouping and its own SQL run in interleaved rounds, as the HTTP scenarios do: the overhead is
  // the median of the rounds' own ratios, each of a pair measured a few seconds apart.
  const params = { accountIds: main.accounts, campaignIds: null, from, to: lastDay, currency: 'USD', nameFilter: null };
  const campaignRuns: Load[] = [];
  const ownRuns: Awaited<ReturnType<typeof loop>>[] = [];
  for (let round = 1; round <= rounds; round++) {
    log(`data round ${round}/${rounds}: campaign through HTTP, then its own SQL`);
    campaignRuns.push(await load(dataUrl('campaign'), server.pid, DATA_C, auth));
    ownRuns.push(await loop(DATA_C, duration, () => queryAs(sql, 'report-data-campaign', params)));
  }
  const each = rounds > 1 ? `, median of ${rounds} rounds` : '';
  groupings.campaign = medianRun(campaignRuns);
  rows.push([`data groupBy=campaign, ${days} days, all accounts (c=${DATA_C}${each})`, groupings.campaign]);
  // The same answer with a custom metric (a formula PostgreSQL evaluates), and sorted by a metric (an ORDER BY).
  const customUrl = `${dataUrl('campaign')}&metrics=impressions,clicks,spend,conversions,ctr,cpc,cpa,roas,engagement`;
  const sortedUrl = `${dataUrl('campaign')}&sort=clicks&sortDesc=true`;
  log('data campaign with a custom metric, and sorted');
  const customRun = await load(customUrl, server.pid, DATA_C, auth);
  const sortedRun = await load(sortedUrl, server.pid, DATA_C, auth);
  const plainRun = await load(dataUrl('campaign'), server.pid, DATA_C, auth);
  rows.push(
    [`data groupBy=campaign with a custom metric (c=${DATA_C})`, customRun],
    [`data groupBy=campaign sorted by clicks (c=${DATA_C})`, sortedRun],
    [`data groupBy=campaign, again beside them (c=${DATA_C})`, plainRun],
  );
  targets.push(
    [
      TARGETS.custom.name,
      `${f(customRun.p50 / plainRun.p50, 2)}×${errorNote(customRun, plainRun)}`,
      customRun.p50 <= TARGETS.custom.bound * plainRun.p50 && clean(customRun, plainRun),
    ],
    [
      TARGETS.sorted.name,
      `${f(sortedRun.p50 / plainRun.p50, 2)}×${errorNote(sortedRun, plainRun)}`,
      sortedRun.p50 <= TARGETS.sorted.bound * plainRun.p50 && clean(sortedRun, plainRun),
    ],
  );
  // Every grouping: the segment grouping from the segment report over the same facts (a campaign in two segments).
  const segmentAuth = { authorization: `Bearer ${segmentToken}` };
  const segmentUrl = `${server.url}/v1/reports/${segments.report}/data?${range}&groupBy=segment`;
  for (const groupBy of ['total', 'month', 'ad-account', 'segment', 'creative', 'video']) {
    log(`data ${groupBy}`);
    const [url, headers, what] =
      groupBy === 'segment'
        ? [segmentUrl, segmentAuth, `${SEGMENTS} segments of the same accounts`]
        : [dataUrl(groupBy), auth, 'all accounts'];
    // Warm, as the campaign grouping is: the groupings that read raw facts would otherwise time the disk.
    await warm(url, headers);
    groupings[groupBy] = await load(url, server.pid, DATA_C, headers);
    rows.push([`data groupBy=${groupBy}, ${days} days, ${what} (c=${DATA_C})`, groupings[groupBy]]);
  }
  // A dashboard refreshing an unchanged report should cost less than a list of reports: the 304 and /v1/reports in
  // interleaved rounds, each round's pair back to back.
  const etag = (await fetch(dataUrl('campaign'), { headers: auth })).headers.get('etag')!;
  const notModifiedRuns: Load[] = [];
  const listRuns: Load[] = [];
  for (let round = 1; round <= rounds; round++) {
    log(`304 round ${round}/${rounds}: data with If-None-Match, then /v1/reports`);
    notModifiedRuns.push(
      await load(dataUrl('campaign'), server.pid, 32, { ...auth, 'if-none-match': etag }, duration, 304),
    );
    listRuns.push(await load(`${server.url}/v1/reports`, server.pid, 32, auth));
  }
  const notModified = medianRun(notModifiedRuns);
  rows.push(
    [`data, If-None-Match → 304${each}`, notModified],
    [`GET /v1/reports beside it${each}`, medianRun(listRuns)],
  );
  // The 304 above finds that no transaction has ended since the scope was read, most of the time: only the bench's
  // own quota writes commit meanwhile. On a database written to all the while, most compute the scope's
  // fingerprint as well (sql/queries/get-report-fingerprint.sql): one run with a transaction committed every
  // millisecond or so on another connection.
  log('304 while other transactions commit');
  const writer = await sql.reserve();
  await writer`create temp table bench_commits (n int)`;
  let writing = true;
  let commits = 0;
  const writes = (async () => {
    for (; writing; commits++) {
      await writer`insert into bench_commits values (1)`;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  })();
  const busy = await load(dataUrl('campaign'), server.pid, 32, { ...auth, 'if-none-match': etag }, duration, 304);
  writing = false;
  await writes;
  writer.release();
  const listed = medianRun(listRuns).rps;
  rows.push([
    `data, If-None-Match → 304, while ${f(commits / duration)} transactions/s commit elsewhere (${f((busy.rps / listed) * 100)} % of /v1/reports)`,
    busy,
  ]);
  const notModifiedShares = notModifiedRuns.map((r, i) => r.rps / listRuns[i].rps);
  targets.push([
    TARGETS.notModified.name,
    `${f(median(notModifiedShares) * 100)} %${rounds > 1 ? ` (rounds: ${notModifiedShares.map((x) => f(x * 100)).join(', ')})` : ''}${errorNote(...notModifiedRuns, ...listRuns)}`,
    median(notModifiedShares) >= TARGETS.notModified.bound && clean(...notModifiedRuns, ...listRuns),
  ]);

  log('SQL floors');
  const ownSql = [...ownRuns].sort((a, b) => a.p50 - b.p50)[Math.floor((ownRuns.length - 1) / 2)];
  rows.push([`the endpoint's own SQL via postgres.js (c=${DATA_C}${each})`, ownSql]);
  const naive = await loop(DATA_C, duration, () =>
    sql.unsafe(
      `select campaign_id, ${BASE_SUMS.map((name) => `sum(${name}) as ${name}`).join(', ')}
       from facts where ad_account_id = any($1::uuid[]) and day between $2 and $3 group by campaign_id`,
      [main.accounts, from, lastDay],
    ),
  );
  rows.push([`naive GROUP BY over raw facts (c=${DATA_C})`, naive]);
  const overheads = campaignRuns.map((r, i) => r.p50 / ownRuns[i].p50 - 1);
  const overhead = median(overheads);
  const overheadRounds = rounds > 1 ? ` (rounds: ${overheads.map((x) => f(x * 100)).join(', ')})` : '';
  targets.push(
    [
      TARGETS.campaignNaive.name,
      `${f(naive.p50 / groupings.campaign.p50, 1)}× faster${errorNote(...campaignRuns)}`,
      groupings.campaign.p50 * TARGETS.campaignNaive.bound <= naive.p50 && clean(...campaignRuns),
    ],
    [
      TARGETS.overhead.name,
      `${f(overhead * 100)} %${overheadRounds}${errorNote(...campaignRuns)}`,
      overhead <= TARGETS.overhead.bound && clean(...campaignRuns),
    ],
    [
      TARGETS.notModifiedVsData.name,
      `${f(notModified.rps / groupings.campaign.rps, 1)}×${errorNote(notModified, ...campaignRuns)}`,
      notModified.rps >= TARGETS.notModifiedVsData.bound * groupings.campaign.rps &&
        clean(notModified, ...campaignRuns),
    ],
  );
  // Every grouping against a naive GROUP BY of the same answer over the raw facts (the campaign's is above).
  const floors: [string, number, { p50: number }][] = [['campaign', NAIVE_BOUNDS.campaign.bound, naive]];
  for (const [groupBy, { bound }] of Object.entries(NAIVE_BOUNDS)) {
    if (groupBy === 'campaign') continue;
    log(`naive GROUP BY for ${groupBy}`);
    const run = await loop(DATA_C, duration, () => sql.unsafe(naiveSql(groupBy), [main.accounts, from, lastDay]));
    rows.push([`naive GROUP BY for groupBy=${groupBy} over raw facts (c=${DATA_C})`, run]);
    floors.push([groupBy, bound, run]);
  }
  for (const [groupBy, bound, run] of floors) {
    targets.push([
      NAIVE_BOUNDS[groupBy].name,
      `${f(run.p50 / groupings[groupBy].p50, 1)}×`,
      run.p50 >= bound * groupings[groupBy].p50,
    ]);
  }
  return result;
}
