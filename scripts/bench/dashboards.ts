// npm run bench -- --only dashboards: the shapes a dashboard asks for (docs/decisions.md §6) on the multi-currency
// set, where every answer converts, over 200 days: each answer against its plain twin, one after the other.
import { tokenFor } from './dataSet.ts';
import { f, log, noResult, type PartResult } from './harness.ts';
import { clean, errorNote, load } from './measure.ts';
import { DATA_C, type Setup } from './setup.ts';

export const TARGETS = {
  shaped: { name: 'GROUPING with a custom metric, a filter or a summary p50 ≤ 1.3× plain', bound: 1.3 },
  compared: { name: 'GROUPING with a comparison range p50 ≤ 2.3× plain', bound: 2.3 },
};

export async function dashboardsPart(setup: Setup): Promise<PartResult> {
  const { sql, server, warm } = setup;
  const converted = setup.converted!;
  const result = noResult();
  const { rows, targets } = result;
  // docs/decisions.md §6 on the multi-currency set (every answer converts), 200 days: each answer against its plain
  // twin, measured one after the other in the same run.
  const dashboardAuth = { authorization: `Bearer ${await tokenFor(server.url, converted.client)}` };
  const [{ last: end }] = await sql`select max(day)::text as last from facts where organization_id = ${converted.org}`;
  const dayBefore = (day: string, n: number) => new Date(Date.parse(day) - n * 86_400_000).toISOString().slice(0, 10);
  const span = 200;
  const start = dayBefore(end, span - 1);
  const compare = `&compareFrom=${dayBefore(start, span)}&compareTo=${dayBefore(start, 1)}`;
  const shapes: [string, string, number][] = [
    ['a custom metric', '&metrics=engagement', TARGETS.shaped.bound],
    ['a filter (spend>100 and a name =@)', '&filter=spend>100&filter=campaignName=@a', TARGETS.shaped.bound],
    ['a summary', '&summary=true', TARGETS.shaped.bound],
    ['a comparison range (the 200 days before)', compare, TARGETS.compared.bound],
  ];
  // The rows' name to filter on, where they have one (docs/decisions.md §6); month rows have none.
  const nameKeys: Record<string, string | undefined> = {
    campaign: 'campaignName',
    creative: 'creativeName',
    'ad-account': 'adAccountName',
  };
  for (const groupBy of ['campaign', 'creative', 'ad-account', 'month']) {
    const plainUrl = `${server.url}/v1/reports/${converted.report}/data?dateFrom=${start}&dateTo=${end}&groupBy=${groupBy}&metrics=impressions,clicks,spend,ctr,cpc`;
    await warm(plainUrl, dashboardAuth);
    for (const [what, query, bound] of shapes) {
      const name = nameKeys[groupBy];
      const asked = name ? query.replace('campaignName', name) : query.replace('&filter=campaignName=@a', '');
      log(`dashboards ${groupBy}: plain, then ${what}`);
      await warm(`${plainUrl}${asked}`, dashboardAuth);
      const plain = await load(plainUrl, server.pid, DATA_C, dashboardAuth);
      const shaped = await load(`${plainUrl}${asked}`, server.pid, DATA_C, dashboardAuth);
      rows.push(
        [`data groupBy=${groupBy}, ${span} days, EUR over three currencies, plain (c=${DATA_C})`, plain],
        [`the same with ${what} (c=${DATA_C})`, shaped],
      );
      targets.push([
        `${groupBy} with ${what} p50 ≤ ${bound}× plain`,
        `${f(shaped.p50 / plain.p50, 2)}× (${f(shaped.p50, 1)} ms against ${f(plain.p50, 1)} ms)${errorNote(plain, shaped)}`,
        shaped.p50 <= bound * plain.p50 && clean(plain, shaped),
      ]);
    }
  }
  return result;
}
