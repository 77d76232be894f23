import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCommand } from '../src/cli/run.ts';
import { testApp, type TestApp } from './support/app.ts';
import { createOrg } from './support/fixtures.ts';
import { FIXTURE_CSV, HEADER, importCsv } from './support/importFixture.ts';

const it = suite<{ t: TestApp; org: string }>('import and generate');
it.before(async (ctx) => {
  ctx.t = await testApp();
  ctx.org = await createOrg(ctx.t.db.sql);
});
it.after(async (ctx) => ctx.t.close());

const counts = async (t: TestApp) =>
  (await t.db.sql`select (select count(*) from facts)::int as facts, (select count(*) from ad_accounts)::int as accounts,
    (select count(*) from campaigns)::int as campaigns, (select count(*) from creatives)::int as creatives`)[0];

it('a good file loads accounts, campaigns, creatives and facts, names and all', async ({ t, org }) => {
  const out = await importCsv(t, org, FIXTURE_CSV);
  assert.is(out.code, 0, out.stderr);
  const printed = JSON.parse(out.stdout);
  assert.is(printed.rows, 6);
  // No rates are loaded: the EUR account's money cannot be converted yet, and the import says so (DECISIONS §11).
  assert.equal(printed.warnings.map((w: string) => w.slice(0, 30)), ['EUR has no exchange rate but m']);
  assert.match(out.stderr, /^readout: warning: EUR has no exchange rate/);
  const [campaign] = await t.db.sql`select name from campaigns where organization_id = ${org} and external_id = 'C1'`;
  assert.is(campaign.name, 'Alpha, "the" first');
  const fetched = await t.db.sql`select count(*)::int as n from ad_accounts where organization_id = ${org} and last_fetched_at is not null`;
  assert.is(fetched[0].n, 2, 'freshness marked');
});

it('importing a day again replaces its numbers rather than adding to them', async ({ t, org }) => {
  const again = [HEADER, '2026-01-05,google-ads,G1,Google US,USD,C2,Beta search,K2,Beta text,text,7,1,2,0,0,0,0'].join('\n');
  assert.is((await importCsv(t, org, again)).code, 0);
  const [row] = await t.db.sql`select f.impressions from facts f join creatives c on c.id = f.creative_id where c.external_id = 'K2' and f.day = '2026-01-05'`;
  assert.is(Number(row.impressions), 7);
});

const badFiles: [string, string, RegExp][] = [
  ['a wrong header', 'date,platform\n2026-01-01,google-ads', /line 1: the header/],
  ['a bad date on line 3', `${HEADER}\n${FIXTURE_CSV.split('\n')[1]}\n2026-02-30${FIXTURE_CSV.split('\n')[1].slice(10)}`, /line 3: date/],
  ['an unknown platform', `${HEADER}\n2026-01-01,myspace,A,A,USD,C,C,K,K,image,1,1,1,0,0,0,0`, /line 2: platform/],
  ['a negative count', `${HEADER}\n2026-01-01,google-ads,A,A,USD,C,C,K,K,image,-1,1,1,0,0,0,0`, /line 2: impressions/],
  ['a missing field', `${HEADER}\n2026-01-01,google-ads,A,A,USD,C,C,K,K,image,1,1,1,0,0,0`, /line 2: has 16 fields/],
  ['an unclosed quote', `${HEADER}\n2026-01-01,google-ads,"A,A,USD,C,C,K,K,image,1,1,1,0,0,0,0`, /line 2: a quoted field/],
  ['one account in two currencies', `${HEADER}\n2026-01-01,google-ads,A,A,USD,C,C,K,K,image,1,1,1,0,0,0,0\n2026-01-02,google-ads,A,A,EUR,C,C,K,K,image,1,1,1,0,0,0,0`, /line 3: account A/],
  ['a currency that contradicts the existing account', `${HEADER}\n2026-03-01,meta-ads,M1,Meta EU,USD,C1,x,K1,x,video,1,1,1,0,0,0,0`, /line 2: the ad account is in EUR/],
  ['an empty file', '', /empty/],
];
for (const [what, csv, message] of badFiles) {
  it(`${what}: exit 2, the first bad line named, nothing written`, async ({ t, org }) => {
    const before = await counts(t);
    // A valid line follows the bad one (where there is one): it must not be written either.
    const later = csv ? '\n2027-01-01,google-ads,G9,Later,USD,C9,Later,K9,Later,image,1,1,1,0,0,0,0' : '';
    const out = await importCsv(t, org, csv + later);
    assert.is(out.code, 2, out.stdout);
    assert.match(out.stderr, message);
    assert.is(out.stderr.trim().split('\n').length, 1);
    assert.equal(await counts(t), before);
  });
}

it('an unreadable file is a clear error', async ({ t, org }) => {
  const out = await runCommand(['import', '--org', org, '--file', '/nope.csv'], {
    sql: t.db.sql, now: t.clock.now, progress: () => {}, readText: () => Promise.reject(new Error('ENOENT')),
  });
  assert.is(out.code, 2);
  assert.match(out.stderr, /cannot read \/nope.csv/);
});

it('generate makes synthetic data at scale with progress lines, and a re-run adds nothing twice', async ({ t }) => {
  const org = await createOrg(t.db.sql, { name: 'Synthetic' });
  const lines: string[] = [];
  const run = () => runCommand(['generate', '--org', org, '--accounts', '2', '--campaigns', '5', '--days', '10', '--json'], {
    sql: t.db.sql, now: t.clock.now, progress: (line) => lines.push(line),
  });
  const out = await run();
  assert.is(out.code, 0, out.stderr);
  assert.equal(JSON.parse(out.stdout), { rows: 25 * 10 });
  assert.ok(lines.some((l) => /10\/10 days/.test(l)), lines.join('\n'));
  const second = await run();
  assert.equal(JSON.parse(second.stdout), { rows: 0 });
  const [n] = await t.db.sql`select count(*)::int as accounts from ad_accounts where organization_id = ${org}`;
  assert.is(n.accounts, 2);
});

it('account connection sets the status, and refuses an unknown one', async ({ t, org }) => {
  const [account] = await t.db.sql`select id from ad_accounts where organization_id = ${org} limit 1`;
  const run = (status: string) => runCommand(['account', 'connection', '--account', account.id, '--status', status, '--json'], { sql: t.db.sql, now: 0, progress: () => {} });
  assert.equal(JSON.parse((await run('expired')).stdout), { adAccountId: account.id, connectionStatus: 'expired' });
  const bad = await run('broken');
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /--status/);
});

it.run();
