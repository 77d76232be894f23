// The demo organization, seeded into a fresh test app, with ids looked up by name.
import type { TestApp } from './app.ts';
import { cli, getToken } from './fixtures.ts';

export type DemoIds = {
  org: string;
  otherOrg: string;
  token: string;
  clientId: string;
  reports: Record<string, string>;
  accounts: Record<string, string>;
  otherReport: string;
  otherAccount: string;
};

/** The demo's ids: seeded with testApp({ demo: true }), which starts from a copy made once, or seeded here. */
export async function seedDemo(t: TestApp): Promise<DemoIds> {
  const out = t.db.demo ?? (await cli(t.db.sql, ['demo'], t.clock.now));
  const reports = Object.fromEntries(
    (await t.db.sql`select name, id from reports where organization_id = ${out.organizationId}`).map((r) => [
      r.name,
      r.id,
    ]),
  );
  const accounts = Object.fromEntries(
    (await t.db.sql`select platform, id from ad_accounts where organization_id = ${out.organizationId}`).map((r) => [
      r.platform,
      r.id,
    ]),
  );
  const [other] = await t.db.sql`select o.id as org, r.id as report, a.id as account from organizations o
    join reports r on r.organization_id = o.id join ad_accounts a on a.organization_id = o.id where o.name = 'Other Company'`;
  return {
    org: out.organizationId,
    otherOrg: other.org,
    otherReport: other.report,
    otherAccount: other.account,
    clientId: out.clientId,
    token: await getToken(t, { clientId: out.clientId, clientSecret: out.clientSecret, secretId: '' }),
    reports,
    accounts,
  };
}
