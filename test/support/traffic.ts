// A real server over a generated organization large enough that an export is still streaming when a client walks
// away: the set-up of the real-traffic tests (issue: crossed results, killed backends, stalled readers, fair use).
import type { TestApp } from './app.ts';
import { cli, createClient, createOrg, type Client } from './fixtures.ts';
import { startServer, tokenFrom, type RunningServer } from './server.ts';

export type Traffic = {
  server: RunningServer;
  org: string;
  report: string;
  /** A fresh client of the organization and its token (each worker its own, as each integration has). */
  client(): Promise<{ client: Client; token: string }>;
  /** Query string of a creative export long enough to be mid-stream when abandoned. */
  longRange: string;
};

/** Generated data: 2 accounts, 400 campaigns, 50,000 creatives over 3 days (a CSV of about 7 MB, more than loopback buffers hold for a reader that stops); a report over both accounts. */
export async function trafficServer(t: TestApp, env: Record<string, string> = {}): Promise<Traffic> {
  const org = await createOrg(t.db.sql, { currency: 'USD' });
  await cli(t.db.sql, ['plan', 'set', '--org', org, '--plan', 'enterprise', '--budget', '100000000']);
  const now = Date.parse('2026-03-10T10:00:00Z');
  await cli(
    t.db.sql,
    ['generate', '--org', org, '--accounts', '2', '--campaigns', '400', '--creatives', '50000', '--days', '3'],
    now,
  );
  const accounts = await t.db.sql`select id from ad_accounts where organization_id = ${org} order by id`;
  const [row] = await t.db.sql`insert into reports (organization_id, name, kind, currency, metrics, groupings)
    values (${org}, 'Traffic', 'standard', 'USD', ${['impressions', 'clicks', 'spend', 'ctr', 'cpc']}, ${['total', 'campaign', 'creative', 'ad-account']})
    returning id`;
  for (const account of accounts) {
    await t.db
      .sql`insert into report_ad_accounts (organization_id, report_id, ad_account_id) values (${org}, ${row.id}, ${account.id})`;
  }
  const server = await startServer({ DATABASE_URL: t.db.url, BASE_URL: 'http://readout.test', DEMO: 'off', ...env });
  return {
    server,
    org,
    report: row.id,
    longRange: 'dateFrom=2026-03-07&dateTo=2026-03-09&groupBy=creative',
    async client() {
      const client = await createClient(t.db.sql, org);
      return { client, token: await tokenFrom(server, client) };
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs fn until the count or the time runs out, whichever is first. */
export async function bounded(count: { n: number }, limit: number, until: number, fn: () => Promise<void>) {
  while (count.n < limit && Date.now() < until) {
    count.n++;
    await fn();
  }
}
