// npm run bench -- --only growth (issue 56's growth table): every grouping over the same 400 days at 0.5M, 1M, 2M and
// 4M facts, each answer's p50 and its cost per row; and the imports' growth beside it (import.ts).
import { dataSet, segmentReport, tokenFor } from './dataSet.ts';
import { log, scale } from './harness.ts';
import { load } from './measure.ts';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { bytesPerFact, f as importF, factsFile, importBench, log as importLog, timedImport } from './importFiles.ts';
import type { Setup } from './setup.ts';

/** The growth table states what it measures; none of its figures is a target of its own. */
export const TARGETS = {};

/**
 * Issue 56's growth table: every grouping over the same 400 days at 0.5M, 1M and 2M facts (an eighth, a quarter and
 * a half of the main set's campaigns and creatives) beside the main set's 4M, each answer's p50 and its cost per row.
 */
export async function growthPart({ sql, server, main, token }: Setup) {
  const groupings = ['total', 'month', 'ad-account', 'segment', 'campaign', 'creative', 'video'];
  const sizes: [string, number][] = [
    ['0.5M', 1 / 8],
    ['1M', 1 / 4],
    ['2M', 1 / 2],
    ['4M', 1],
  ];
  const cells = new Map<string, string[]>(groupings.map((g) => [g, []]));
  const perRow = new Map<string, number[]>(groupings.map((g) => [g, []]));
  for (const [label, share] of sizes) {
    const set =
      share === 1
        ? main
        : await dataSet(sql, `Bench growth ${label} ${scale}`, {
            accounts: 20,
            campaigns: Math.round(2000 * scale * share),
            creatives: Math.round(10000 * scale * share),
            days: 400,
          });
    const segments = await segmentReport(sql, set.org);
    const auth = { authorization: `Bearer ${share === 1 ? token : await tokenFor(server.url, set.client)}` };
    const segmentAuth = { authorization: `Bearer ${await tokenFor(server.url, segments.client)}` };
    const [{ last }] = await sql`select max(day)::text as last from facts where organization_id = ${set.org}`;
    const from = new Date(Date.parse(last) - 399 * 86_400_000).toISOString().slice(0, 10);
    for (const groupBy of groupings) {
      const [report, headers] = groupBy === 'segment' ? [segments.report, segmentAuth] : [set.report, auth];
      const url = `${server.url}/v1/reports/${report}/data?dateFrom=${from}&dateTo=${last}&groupBy=${groupBy}`;
      log(`growth: ${label} facts, ${groupBy}`);
      const answer = (await (await fetch(url, { headers })).json()) as { rows: unknown[] };
      const run = await load(url, server.pid, 4, headers);
      const micros = (run.p50 * 1000) / Math.max(1, answer.rows.length);
      perRow.get(groupBy)!.push(micros);
      cells.get(groupBy)!.push(`${run.p50.toFixed(0)} ms, ${micros.toFixed(1)} µs/row (${answer.rows.length})`);
    }
  }
  return [
    '',
    `| grouping, 400 days, c=4 | ${sizes.map(([label]) => `${label} facts: p50, per row (rows)`).join(' | ')} |`,
    `|---|${sizes.map(() => '---:').join('|')}|`,
    ...groupings.map((g) => `| ${g} | ${cells.get(g)!.join(' | ')} |`),
    '',
    '| grouping | cost per row, 4M against 0.5M |',
    '|---|---:|',
    ...groupings.map((g) => `| ${g} | ${(perRow.get(g)![3] / perRow.get(g)![0]).toFixed(2)}× |`),
  ];
}

/**
 * The write half of the growth table: the facts of the bench's data set shape (five creatives a campaign, 400 days)
 * imported in steps to an eighth, a quarter, a half and all of its 10,000 creatives × scale; each step's import rate
 * and the database's bytes per fact after it. Creatives from the 20th on: the first 20 made the accounts.
 */
export async function importGrowth(scale: number): Promise<string[]> {
  const days = 400;
  const shares = [1 / 8, 1 / 4, 1 / 2, 1];
  const { sql, env, org, work, done } = await importBench(days + 1);
  const cells: string[][] = [[], [], []];
  let daily = '';
  try {
    let held = 0;
    for (const share of shares) {
      const creatives = Math.round(10_000 * scale * share) - held;
      const file = join(work, `growth-${share}.csv`);
      const rows = factsFile(file, { creatives, days, version: 1, first: 20 + held, perCampaign: 5 });
      held += creatives;
      importLog(`growth: ${importF(rows)} rows, to ${importF(held * days)} facts`);
      const { seconds } = await timedImport(env, org, file);
      rmSync(file);
      const bytes = await bytesPerFact(sql);
      cells[0].push(importF(held * days));
      cells[1].push(`${importF(rows / seconds)} (${importF(seconds, 1)} s)`);
      cells[2].push(`${importF(bytes.native)}; ${importF(bytes.converted)}`);
    }
    // What an agency's daily load costs at the largest step: today's row of every creative.
    const file = join(work, 'growth-today.csv');
    const rows = factsFile(file, { creatives: held, days: 1, version: 1, first: 20, perCampaign: 5, endsAgo: 0 });
    importLog(`growth: a day of ${importF(rows)} creatives`);
    const { seconds } = await timedImport(env, org, file);
    daily = `${importF(rows / seconds)} (${importF(seconds, 1)} s)`;
  } finally {
    await done();
  }
  return [
    '',
    `| facts | ${cells[0].join(' | ')} |`,
    `|---|${shares.map(() => '---:').join('|')}|`,
    `| import of the facts added to get here, rows/s | ${cells[1].join(' | ')} |`,
    `| bytes a fact: facts and rollups; the EUR report's converted rollups | ${cells[2].join(' | ')} |`,
    `| then a day of every creative, rows/s | ${shares.map((_, i) => (i === shares.length - 1 ? daily : '')).join(' | ')} |`,
  ];
}
