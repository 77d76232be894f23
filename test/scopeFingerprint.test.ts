// Migration 023: a report scope's fingerprint moves with every write to a row the scope is read from, whoever makes
// it, so a 304 that finds the same fingerprint in a read begun after it came can trust the scope read before. While no
// transaction has ended since, the snapshot alone says so (get-report-fingerprint), and the fingerprint is not computed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { testApp, type TestApp } from './support/app.ts';
import { onPostgres } from './support/database.ts';
import { skipped } from './support/skip.ts';
import { queryAs } from '../src/store/queries.ts';
import { currentScope } from '../src/report/scope.ts';
import type { Principal } from '../src/http/caller.ts';
import { bearer, tenant } from './support/fixtures.ts';
import { fixtureReport } from './support/importFixture.ts';

type Ctx = { t: TestApp; org: string; report: string };
const it = suite<Ctx>('report scope fingerprint');
it.before.each(async (ctx) => {
  ctx.t = await testApp();
  ctx.org = (await tenant(ctx.t)).org;
  ctx.report = (await fixtureReport(ctx.t, ctx.org)).report;
});
it.after.each(async (ctx) => ctx.t.close());

async function fingerprint(ctx: Ctx, accounts: string[] | null = null): Promise<string> {
  const [row] = await ctx.t.db.sql`select report_scope_fingerprint(${ctx.report}, ${ctx.org}, ${accounts === null},
    ${accounts ?? []}::uuid[]) as fingerprint`;
  return row.fingerprint;
}

const WRITES: [string, (ctx: Ctx) => Promise<unknown>][] = [
  ['the report renamed', (c) => c.t.db.sql`update reports set name = 'Renamed' where id = ${c.report}`],
  [
    'the report version moved (readout apply)',
    (c) => c.t.db.sql`update report_versions set version = version + 1 where organization_id = ${c.org}`,
  ],
  [
    'an ad account fetched',
    (c) =>
      c.t.db
        .sql`update ad_accounts set last_fetched_at = now() where organization_id = ${c.org} and platform = 'meta-ads'`,
  ],
  [
    'an ad account’s connection broken',
    (c) =>
      c.t.db
        .sql`update ad_accounts set connection_status = 'expired' where organization_id = ${c.org} and platform = 'google-ads'`,
  ],
  [
    'a fact changed',
    (c) => c.t.db.sql`update facts set clicks = clicks + 1 where organization_id = ${c.org} and day = '2026-01-05'`,
  ],
  ['a fact removed', (c) => c.t.db.sql`delete from facts where organization_id = ${c.org} and day = '2026-02-10'`],
  [
    'a rate the EUR account is converted at',
    (c) => c.t.db.sql`update fx_rates set usd_per_unit = 1.3 where currency = 'EUR' and day = '2026-01-07'`,
  ],
  [
    'an ad account taken out of the report',
    (c) => c.t.db.sql`delete from report_ad_accounts where report_id = ${c.report} and ad_account_id in
      (select id from ad_accounts where organization_id = ${c.org} and platform = 'google-ads')`,
  ],
  [
    'a custom metric added',
    (c) => c.t.db.sql`insert into custom_metrics (organization_id, name, display_name, kind, unit, formula)
      values (${c.org}, 'double_clicks', 'Double clicks', 'count', 'count', 'clicks * 2')`,
  ],
  [
    'a segment linked',
    async (c) => {
      const [segment] = await c.t.db
        .sql`insert into segments (organization_id, name) values (${c.org}, 'S') returning id`;
      await c.t.db
        .sql`insert into report_segments (organization_id, report_id, segment_id) values (${c.org}, ${c.report}, ${segment.id})`;
    },
  ],
  [
    'a campaign put in the segment',
    (c) => c.t.db.sql`insert into segment_campaigns (organization_id, segment_id, campaign_id)
      select ${c.org}, s.id, k.id from segments s, campaigns k where s.organization_id = ${c.org} and k.organization_id = ${c.org}
      order by k.id limit 1`,
  ],
  ['a campaign taken out of it', (c) => c.t.db.sql`delete from segment_campaigns where organization_id = ${c.org}`],
];

it('moves with every write to what the scope reads, and only then', async (ctx) => {
  let last = await fingerprint(ctx);
  assert.is(await fingerprint(ctx), last, 'nothing written: the same');
  await ctx.t.db.sql`update ad_accounts set name = name where organization_id <> ${ctx.org}`;
  for (const [what, write] of WRITES) {
    await write(ctx);
    const next = await fingerprint(ctx);
    assert.is.not(next, last, what);
    last = next;
  }
});

it('follows the ad accounts the client may see', async (ctx) => {
  const [google] = await ctx.t.db
    .sql`select id from ad_accounts where organization_id = ${ctx.org} and platform = 'google-ads'`;
  const onlyGoogle = await fingerprint(ctx, [google.id]);
  await ctx.t.db
    .sql`update ad_accounts set last_fetched_at = now() where organization_id = ${ctx.org} and platform = 'meta-ads'`;
  assert.is(await fingerprint(ctx, [google.id]), onlyGoogle, 'an account out of its reach');
  await ctx.t.db.sql`update ad_accounts set last_fetched_at = now() where id = ${google.id}`;
  assert.is.not(await fingerprint(ctx, [google.id]), onlyGoogle, 'its own account');
});

it("a segment report's ETag moves with its segments' campaigns, whoever changes them", async (ctx) => {
  const { org, token } = await tenant(ctx.t);
  const { report } = await fixtureReport(ctx.t, org, { kind: 'segment' });
  const sql = ctx.t.db.sql;
  const [segment] = await sql`insert into segments (organization_id, name) values (${org}, 'S') returning id`;
  await sql`insert into report_segments (organization_id, report_id, segment_id) values (${org}, ${report}, ${segment.id})`;
  await sql`update reports set groupings = array['total', 'segment'] where id = ${report}`;
  const url = `/v1/reports/${report}/data?dateFrom=2026-01-01&dateTo=2026-01-31&groupBy=segment`;
  const before = await ctx.t.fetch(url, bearer(token));
  assert.is(before.status, 200);
  const etag = before.headers.get('etag')!;
  await sql`insert into segment_campaigns (organization_id, segment_id, campaign_id)
    select ${org}, ${segment.id}, id from campaigns where organization_id = ${org}`;
  const after = await ctx.t.fetch(url, { headers: { authorization: `Bearer ${token}`, 'if-none-match': etag } });
  assert.is(after.status, 200, 'not a 304: the answer changed');
  assert.is.not(after.headers.get('etag'), etag);
  assert.ok((await after.json()).rows.length > 0, 'the campaigns now count');
});

/** The whole report's scope, as a client allowed everything reads it. */
const everything = (ctx: Ctx) => ({
  report: ctx.report,
  org: ctx.org,
  reportsAll: true,
  reportIds: [],
  adAccountsAll: true,
  adAccountIds: [],
});

/** get-report-fingerprint for the whole report, given the snapshot the scope was last known to hold in. */
async function check(ctx: Ctx, snapshot: string | null) {
  const [row] = await queryAs<{ snapshot: string | null; fingerprint: string | null }>(
    ctx.t.db.sql,
    'get-report-fingerprint',
    { ...everything(ctx), snapshot },
  );
  return row;
}

it('the fingerprint is skipped while no transaction has ended, and decides once one has, anywhere', async (ctx) => {
  const first = await check(ctx, null);
  assert.ok(first.snapshot, 'a snapshot');
  assert.is(first.fingerprint, await fingerprint(ctx), 'no snapshot to compare: the fingerprint');
  // Snapshots are the server's, not the database's: on a PostgreSQL that other tests share, a transaction of theirs
  // may end between two checks. Either way the answer must follow; asked again until once nothing ended between.
  let unchanged = false;
  for (let i = 0; i < 50 && !unchanged; i++) {
    const before = await check(ctx, null);
    const again = await check(ctx, before.snapshot);
    unchanged = again.snapshot === before.snapshot;
    if (unchanged) assert.is(again.fingerprint, null, 'nothing ended since: no fingerprint');
    else assert.is(again.fingerprint, first.fingerprint, 'a transaction ended: the fingerprint decides');
  }
  assert.ok(unchanged, 'once, nothing ended between two checks');
  await tenant(ctx.t);
  const after = await check(ctx, first.snapshot);
  assert.is.not(after.snapshot, first.snapshot, 'a transaction ended elsewhere');
  assert.is(after.fingerprint, first.fingerprint, 'the fingerprint decides: nothing of this scope changed');
  // As above: another test's transaction may end between the read and the check; asked again until none did.
  let whole = false;
  for (let i = 0; i < 50 && !whole; i++) {
    const [{ snapshot: scoped }] = await queryAs<{ snapshot: string }>(
      ctx.t.db.sql,
      'get-report-scope',
      everything(ctx),
    );
    const again = await check(ctx, scoped);
    whole = again.snapshot === scoped;
    if (whole) assert.is(again.fingerprint, null, 'the whole read gives its snapshot too');
  }
  assert.ok(whole, 'once, nothing ended between the read and the check');
});

it('a write running when the scope was read moves the snapshot when it commits, though later ones ended first', async (ctx) => {
  const test = 'a write running when the scope was read';
  if (skipped(!onPostgres, 'report scope fingerprint', test, 'needs two transactions at once: PostgreSQL only')) return;
  const writer = await ctx.t.db.sql.reserve();
  try {
    // The writer takes its transaction id, then later ones end: the scope is read with the writer listed as running,
    // below the snapshot's xmax, so its commit leaves xmax where it was and changes only that list.
    await writer`begin`;
    await writer`update report_versions set version = version + 1 where organization_id = ${ctx.org}`;
    await tenant(ctx.t);
    // Another test's transaction on the shared server may end between two checks (as above): read again until once
    // nothing ended between a read and its check.
    let read = await check(ctx, null);
    let quiet = (await check(ctx, read.snapshot)).fingerprint === null;
    for (let i = 0; i < 50 && !quiet; i++) {
      read = await check(ctx, null);
      quiet = (await check(ctx, read.snapshot)).fingerprint === null;
    }
    assert.ok(quiet, 'once, nothing ended since the read');
    await writer`commit`;
    const after = await check(ctx, read.snapshot);
    assert.is.not(after.snapshot, read.snapshot, 'the writer ended');
    assert.ok(after.fingerprint && after.fingerprint !== read.fingerprint, 'and what it wrote is seen');
  } finally {
    await writer`rollback`.catch(() => {});
    writer.release();
  }
});

it('currentScope reuses the kept scope while nothing ended, and reads a writer running meanwhile once it commits', async (ctx) => {
  const test = 'currentScope and a writer running meanwhile';
  if (skipped(!onPostgres, 'report scope fingerprint', test, 'needs two transactions at once: PostgreSQL only')) return;
  const principal = { organizationId: ctx.org, reports: 'all', adAccounts: 'all' } as unknown as Principal;
  const sql = ctx.t.db.sql;
  const writer = await sql.reserve();
  try {
    await writer`begin`;
    await writer`update report_versions set version = version + 1 where organization_id = ${ctx.org}`;
    await tenant(ctx.t);
    const first = await currentScope(sql, ctx.report, principal);
    assert.ok(first);
    assert.is(await currentScope(sql, ctx.report, principal), first, 'nothing ended: the kept scope');
    await writer`commit`;
    const after = await currentScope(sql, ctx.report, principal);
    assert.ok(after);
    assert.is.not(after.version, first.version, 'the committed version is read');
    assert.is(await currentScope(sql, ctx.report, principal), after, 'and kept in its turn');
  } finally {
    await writer`rollback`.catch(() => {});
    writer.release();
  }
});

it.run();
