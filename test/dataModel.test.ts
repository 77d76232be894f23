// The enumerations of src/dataModel.ts are the values the SQL check constraints allow, column by column.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  CAMPAIGN_STATUSES,
  CONNECTION_STATUSES,
  CREATIVE_FORMATS,
  METRIC_KINDS,
  PLATFORMS,
  RATE_SOURCES,
  REPORT_KINDS,
} from '../src/dataModel.ts';
import { freshDatabase } from './support/database.ts';
import { createOrg } from './support/fixtures.ts';

const COLUMNS: Record<string, readonly string[]> = {
  'ad_accounts.platform': PLATFORMS,
  'ad_accounts.connection_status': CONNECTION_STATUSES,
  'campaigns.status': CAMPAIGN_STATUSES,
  'creatives.format': CREATIVE_FORMATS,
  'system_metrics.kind': METRIC_KINDS,
  'custom_metrics.kind': METRIC_KINDS,
  'reports.kind': REPORT_KINDS,
  'fx_rates.source': RATE_SOURCES,
};

test("every enumeration is what its column's check constraint allows", async () => {
  const db = await freshDatabase();
  try {
    const rows = await db.sql<{ tbl: string; col: string; def: string }[]>`
      select c.conrelid::regclass::text as tbl, a.attname as col, pg_get_constraintdef(c.oid) as def
      from pg_constraint c join pg_attribute a on a.attrelid = c.conrelid and a.attnum = any(c.conkey)
      where c.contype = 'c' and cardinality(c.conkey) = 1`;
    const allowed = new Map(
      rows
        .filter((r) => /ANY \(ARRAY\[/.test(r.def))
        .map((r) => [`${r.tbl}.${r.col}`, [...r.def.matchAll(/'([^']*)'::text/g)].map((m) => m[1])]),
    );
    for (const [column, values] of Object.entries(COLUMNS)) assert.equal(allowed.get(column), [...values], column);
  } finally {
    await db.close();
  }
});

test("a campaign is in its account's organization and a creative in its campaign's (migration 045)", async () => {
  const db = await freshDatabase();
  const sql = db.sql;
  try {
    const [mine, theirs] = [await createOrg(sql, { name: 'Mine' }), await createOrg(sql, { name: 'Theirs' })];
    const [account] = await sql`insert into ad_accounts (organization_id, platform, external_id, name, currency)
      values (${mine}, 'meta-ads', 'A1', 'Account', 'EUR') returning id`;
    const campaign = (org: string) =>
      sql`insert into campaigns (organization_id, ad_account_id, external_id, name, status)
        values (${org}, ${account.id}, ${`C-${org}`}, 'Campaign', 'active') returning id`;
    const refused = async (write: () => Promise<unknown>, what: string) => {
      const error = await write().then(
        () => undefined,
        (e) => e,
      );
      assert.is(error?.code, '23503', what);
    };
    await refused(() => campaign(theirs), "a campaign under another organization's account");
    const [ours] = await campaign(mine);
    const creative = (org: string) =>
      sql`insert into creatives (organization_id, campaign_id, external_id, name, format)
        values (${org}, ${ours.id}, ${`K-${org}`}, 'Creative', 'image')`;
    await refused(() => creative(theirs), "a creative under another organization's campaign");
    await creative(mine);
    await refused(() => sql`delete from campaigns where id = ${ours.id}`, 'a campaign its creatives name');
  } finally {
    await db.close();
  }
});

test.run();
