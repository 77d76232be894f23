// The bench's data sets (npm run bench): organizations of generated facts, made once and reused by later runs, each
// with a report over all its accounts and a client allowed that report only.
import { runCommand } from '../../src/cli/run.ts';
import type { Sql } from '../../src/store/database.ts';
import { log } from './harness.ts';

export async function cli(sql: Sql, argv: string[]) {
  const out = await runCommand([...argv, '--json'], { sql, now: Date.now(), progress: log });
  if (out.code !== 0) throw new Error(`${argv.join(' ')}: ${out.stderr}`);
  return JSON.parse(out.stdout);
}

/**
 * An organization named `name` with generated data and a report over all its accounts; made once, reused after.
 * currencies: the accounts' in turn (default USD); reportCurrency: the report's (default USD). Every organization has
 * the custom metric `engagement`, which the report does not save: a request asks for it.
 */
export async function dataSet(
  sql: Sql,
  name: string,
  size: { accounts: number; campaigns: number; creatives: number; days: number },
  money: { currencies?: string[]; reportCurrency?: string } = {},
) {
  let [org] = await sql`select id from organizations where name = ${name}`;
  if (!org) org = { id: (await cli(sql, ['org', 'create', '--name', name, '--plan', 'enterprise'])).organizationId };
  await cli(sql, ['plan', 'set', '--org', org.id, '--plan', 'enterprise', '--budget', '100000000']);
  const [{ n }] = await sql`select count(*)::int as n from facts where organization_id = ${org.id}`;
  const expected = size.creatives * size.days;
  if (n < expected * 0.95) {
    log(`${name}: generating ${expected} fact rows`);
    const currencies = money.currencies ? ['--currencies', money.currencies.join(',')] : [];
    await cli(sql, [
      'generate',
      '--org',
      org.id,
      '--accounts',
      String(size.accounts),
      '--campaigns',
      String(size.campaigns),
      '--creatives',
      String(size.creatives),
      '--days',
      String(size.days),
      ...currencies,
    ]);
    if (money.currencies) await ecbRates(sql, size.days);
    // Measured now, the tables would still carry the generator's dead rows and no statistics until autovacuum
    // came round: the planner would guess the fact tables' sizes and a first run would time the wrong plans.
    log(`${name}: vacuum analyze`);
    await sql`vacuum analyze`;
  }
  let [report] = await sql`select id from reports where organization_id = ${org.id} and name = ${name}`;
  if (!report) {
    [report] = await sql`insert into reports (organization_id, name, kind, currency, metrics) values
      (${org.id}, ${name}, 'standard', ${money.reportCurrency ?? 'USD'}, ${['impressions', 'clicks', 'spend', 'conversions', 'ctr', 'cpc', 'cpa', 'roas']}) returning id`;
    await sql`insert into report_ad_accounts (organization_id, report_id, ad_account_id) select organization_id, ${report.id}, id from ad_accounts where organization_id = ${org.id}`;
    // A report in a new currency built its converted rollups (migration 019): analysed, as `readout apply` leaves them.
    await sql`analyze`;
  }
  await sql`insert into custom_metrics (organization_id, name, display_name, kind, unit, formula)
    values (${org.id}, 'engagement', 'Engagement rate', 'percent', 'percent', '(clicks + video_views) / impressions * 100') on conflict do nothing`;
  const accounts = (await sql`select id from ad_accounts where organization_id = ${org.id} order by id`).map(
    (r) => r.id as string,
  );
  // Allowed this report only: /v1/reports lists the one report whatever else the organization holds (segmentReport).
  const client = await benchClient(sql, org.id, report.id);
  return { org: org.id as string, report: report.id as string, accounts, client };
}

/**
 * Daily euro reference rates as the ECB publishes them (units per EUR, weekdays only), USD and GBP columns, from a
 * month before the facts' first day to today, loaded with `fx import` as an operator would.
 */
async function ecbRates(sql: Sql, days: number) {
  const lines = ['Date,USD,GBP,'];
  for (let d = days + 31; d >= 0; d--) {
    const day = new Date(Date.now() - d * 86_400_000);
    if (day.getUTCDay() === 0 || day.getUTCDay() === 6) continue;
    const wobble = Math.sin(d / 17) / 50;
    lines.push(`${day.toISOString().slice(0, 10)},${(1.1 + wobble).toFixed(4)},${(0.85 - wobble / 3).toFixed(4)},`);
  }
  const text = `${lines.join('\n')}\n`;
  const out = await runCommand(['fx', 'import', '--file', 'eurofxref-hist.csv', '--json'], {
    sql,
    now: Date.now(),
    progress: log,
    readText: async () => text,
  });
  if (out.code !== 0) throw new Error(`fx import: ${out.stderr}`);
}

export const benchClient = (sql: Sql, org: string, report: string) =>
  cli(sql, [
    'client',
    'create',
    '--org',
    org,
    '--name',
    'bench',
    '--scopes',
    'reports:read reports:data reports:export',
    '--reports',
    report,
    '--ad-accounts',
    'all',
  ]);

export const SEGMENTS = 20;

/**
 * A segment report over all of org's accounts, for the segment grouping: SEGMENTS segments, each campaign in two of
 * them (neighbours in id order), so every campaign counts twice. Made once, reused after; its own client.
 */
export async function segmentReport(sql: Sql, org: string) {
  let [report] = await sql`select id from reports where organization_id = ${org} and kind = 'segment'`;
  if (!report) {
    report = await sql.begin(async (tx) => {
      await tx`insert into segments (organization_id, name) select ${org}, 'Bench segment ' || lpad(k::text, 2, '0') from generate_series(1, ${SEGMENTS}::int) k`;
      await tx`insert into segment_campaigns (organization_id, segment_id, campaign_id)
        select c.organization_id, s.id, c.id
        from (select id, organization_id, row_number() over (order by id) as n from campaigns where organization_id = ${org}) c
        join (select id, row_number() over (order by name) as k from segments where organization_id = ${org}) s
          on s.k = c.n % ${SEGMENTS}::int + 1 or s.k = (c.n + 1) % ${SEGMENTS}::int + 1`;
      const [made] = await tx`insert into reports (organization_id, name, kind, currency, metrics, groupings) values
        (${org}, 'Bench segments', 'segment', 'USD', ${['impressions', 'clicks', 'spend', 'conversions', 'ctr', 'cpc', 'cpa', 'roas']}, ${['total', 'segment', 'campaign', 'month']})
        returning id`;
      await tx`insert into report_ad_accounts (organization_id, report_id, ad_account_id) select organization_id, ${made.id}, id from ad_accounts where organization_id = ${org}`;
      await tx`insert into report_segments (organization_id, report_id, segment_id) select organization_id, ${made.id}, id from segments where organization_id = ${org}`;
      return made;
    });
  }
  // As `readout apply` does (analyze-catalogue.sql): planned blind, a segment answer outlasted the deadline.
  await sql`analyze segments, segment_campaigns, report_segments`;
  return { report: report.id as string, client: await benchClient(sql, org, report.id) };
}

export async function tokenFor(base: string, client: { clientId: string; clientSecret: string }) {
  const res = await fetch(`${base}/api/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    }),
  });
  return (await res.json()).access_token as string;
}

export type DataSet = Awaited<ReturnType<typeof dataSet>>;
