// npm run bench -- --only currencies: every grouping of an EUR report over USD, EUR and GBP accounts (daily ECB
// rates) against the same grouping of a one-currency report of the same shape.
import { tokenFor } from './dataSet.ts';
import { f, log, noResult, type PartResult } from './harness.ts';
import { clean, errorNote, load } from './measure.ts';
import { DATA_C, type Setup } from './setup.ts';

export const TARGETS = {
  converted: { name: 'converted groupBy=GROUPING p50 ≤ 1.5× one-currency', bound: 1.5 },
};

export async function currenciesPart(setup: Setup): Promise<PartResult> {
  const { sql, server, days, dataUrl, auth, warm } = setup;
  const converted = setup.converted!;
  const result = noResult();
  const { rows, targets } = result;
  const convertedAuth = { authorization: `Bearer ${await tokenFor(server.url, converted.client)}` };
  const [{ last: convertedLast }] =
    await sql`select max(day)::text as last from facts where organization_id = ${converted.org}`;
  const convertedFrom = new Date(Date.parse(convertedLast) - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  const convertedUrl = (groupBy: string) =>
    `${server.url}/v1/reports/${converted.report}/data?dateFrom=${convertedFrom}&dateTo=${convertedLast}&groupBy=${groupBy}`;
  for (const groupBy of ['total', 'campaign', 'month', 'ad-account', 'creative', 'video']) {
    log(`currencies ${groupBy}: one currency, then converted`);
    await warm(dataUrl(groupBy));
    await warm(convertedUrl(groupBy), convertedAuth);
    const one = await load(dataUrl(groupBy), server.pid, DATA_C, auth);
    const other = await load(convertedUrl(groupBy), server.pid, DATA_C, convertedAuth);
    rows.push(
      [`data groupBy=${groupBy}, ${days} days, USD report over USD accounts (c=${DATA_C})`, one],
      [`data groupBy=${groupBy}, ${days} days, EUR report over USD, EUR and GBP accounts (c=${DATA_C})`, other],
    );
    targets.push([
      TARGETS.converted.name.replace('GROUPING', groupBy),
      `${f(other.p50 / one.p50, 2)}× (${f(other.p50, 1)} ms against ${f(one.p50, 1)} ms)${errorNote(one, other)}`,
      other.p50 <= TARGETS.converted.bound * one.p50 && clean(one, other),
    ]);
  }
  return result;
}
