// npm run bench -- --only declared: answers that read base metrics an organization declares (docs/decisions.md §5),
// against the same answers reading only built-in ones. A data set of the main one's shape whose facts carry three
// declared numbers (a count, money, a decimal count), each grouping over the whole range and over a month.
import { applyCatalogue } from '../../src/catalogue/apply.ts';
import { dataSet, tokenFor } from './dataSet.ts';
import { f, log, noResult, scale, type PartResult } from './harness.ts';
import { clean, errorNote, load } from './measure.ts';
import { DATA_C, DAYS, type Setup } from './setup.ts';

export const TARGETS = {
  declared: { name: 'an answer with declared metrics p50 ≤ 1.2× the same with built-in ones only', bound: 1.2 },
};

const DECLARED = `baseMetrics:
  - { name: leads, kind: count }
  - { name: purchase_value, kind: money, conversionDerived: true }
  - { name: score, kind: count, whole: false }
`;

const PLAIN = 'impressions,clicks,spend';
const WITH_DECLARED = `${PLAIN},leads,purchase_value,score`;

export async function declaredPart(setup: Setup): Promise<PartResult> {
  const { sql, server } = setup;
  const result = noResult();
  const name = `Bench declared ${scale}`;
  const set = await dataSet(sql, name, {
    accounts: 20,
    campaigns: Math.round(2000 * scale),
    creatives: Math.round(10000 * scale),
    days: DAYS,
  });
  const [{ declared }] = await sql`select count(*)::int as declared from custom_metrics
    where organization_id = ${set.org} and slot is not null`;
  if (declared === 0) {
    log(`${name}: declaring three base metrics and writing their numbers into every fact`);
    const applied = await applyCatalogue(sql, set.org, DECLARED, { dryRun: false, prune: false });
    if (!applied.ok) throw new Error(JSON.stringify(applied.problems));
    // The built-in numbers stay as they are, so the rollups of the built-in metrics are not rebuilt (migration 042).
    await sql`update facts set declared = array[clicks::float8, spend, conversions / 2] where organization_id = ${set.org}`;
    await sql`vacuum analyze`;
  }
  const token = await tokenFor(server.url, set.client);
  const auth = { authorization: `Bearer ${token}` };
  const [{ last }] = await sql`select max(day)::text as last from facts where organization_id = ${set.org}`;
  const from = (days: number) => new Date(Date.parse(last) - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  const url = (groupBy: string, days: number, metrics: string) =>
    `${server.url}/v1/reports/${set.report}/data?dateFrom=${from(days)}&dateTo=${last}&groupBy=${groupBy}` +
    `&metrics=${metrics}`;
  let worst = 0;
  let worstShape = '';
  const notes: string[] = [];
  for (const [groupBy, days] of [
    ['total', DAYS],
    ['campaign', DAYS],
    ['month', DAYS],
    ['ad-account', DAYS],
    ['campaign', 30],
    ['creative', 30],
    ['creative', DAYS],
  ] as const) {
    log(`declared: ${groupBy}, ${days} days`);
    const plain = await load(url(groupBy, days, PLAIN), server.pid, DATA_C, auth);
    const withDeclared = await load(url(groupBy, days, WITH_DECLARED), server.pid, DATA_C, auth);
    const ratio = withDeclared.p50 / plain.p50;
    result.rows.push(
      [`data ${groupBy}, ${days} days, built-in metrics only (c=${DATA_C})`, plain],
      [`data ${groupBy}, ${days} days, with three declared metrics (c=${DATA_C})`, withDeclared],
    );
    notes.push(`${groupBy} ${days} d ${f(ratio, 2)}×${errorNote(plain, withDeclared)}`);
    if (ratio > worst || !clean(plain, withDeclared)) (worst = ratio), (worstShape = `${groupBy}, ${days} days`);
  }
  result.targets.push([
    TARGETS.declared.name,
    `worst ${f(worst, 2)}× (${worstShape}); ${notes.join(', ')}`,
    worst <= TARGETS.declared.bound,
  ]);
  return result;
}
