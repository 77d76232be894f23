// `org delete --yes` and `demo --remove` (docs/decisions.md §10): an organization goes with everything it owns, in one
// transaction; its clients' tokens stop within a second; every other organization is untouched.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCommand } from '../src/cli/run.ts';
import type { Sql } from '../src/store/database.ts';
import { testApp, type TestApp } from './support/app.ts';
import { seedDemo, type DemoIds } from './support/demo.ts';
import { bearer, tenant } from './support/fixtures.ts';
import { fixtureReport } from './support/importFixture.ts';

const it = suite<{ t: TestApp; d: DemoIds }>('deleting organizations');
it.before(async (ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400' }, demo: true });
  ctx.d = await seedDemo(ctx.t);
});
it.after(async (ctx) => ctx.t.close());

const run = (t: TestApp, argv: string[]) => runCommand(argv, { sql: t.db.sql, now: t.clock.now, progress: () => {} });

/** Rows that name the organization, in every table that has an organization_id. */
async function rowsOf(sql: Sql, org: string): Promise<Record<string, number>> {
  const tables = await sql<{ table: string }[]>`
    select table_name as table from information_schema.columns
    where table_schema = 'public' and column_name = 'organization_id' order by table_name`;
  const counts: Record<string, number> = {};
  for (const { table } of tables) {
    const [row] = await sql.unsafe(`select count(*)::int as n from ${table} where organization_id = $1`, [org]);
    if (row.n > 0) counts[table] = row.n;
  }
  const [own] = await sql`select count(*)::int as n from organizations where id = ${org}`;
  if (own.n > 0) counts.organizations = own.n;
  return counts;
}

it('without --yes nothing is deleted; with it, everything the organization owns, and its tokens stop within a second', async ({
  t,
  d,
}) => {
  const other = await tenant(t);
  const { report } = await fixtureReport(t, other.org);
  const before = await rowsOf(t.db.sql, other.org);
  assert.is((await t.fetch('/v1/me', bearer(d.token))).status, 200);

  const refused = await run(t, ['org', 'delete', '--org', d.org]);
  assert.is(refused.code, 2);
  assert.match(refused.stderr, /add --yes/);
  assert.ok((await rowsOf(t.db.sql, d.org)).facts > 0, 'nothing deleted without --yes');

  const done = await run(t, ['org', 'delete', '--org', d.org, '--yes', '--json']);
  assert.is(done.code, 0, done.stderr);
  const out = JSON.parse(done.stdout);
  assert.is(out.organizationId, d.org);
  assert.is(out.deleted, true);
  assert.ok(out.clients >= 1 && out.factRows > 0, done.stdout);
  assert.equal(await rowsOf(t.db.sql, d.org), {}, 'no row names the organization');

  // A second later every process's list of revoked clients has caught up (docs/decisions.md §9).
  t.clock.advance(1001);
  assert.is((await t.fetch('/v1/me', bearer(d.token))).status, 401);
  assert.is((await t.fetch('/v1/reports', bearer(d.token))).status, 401);
  assert.is((await t.fetch('/v1/me', bearer(other.token))).status, 200, 'another organization keeps working');
  const data = await t.fetch(
    `/v1/reports/${report}/data?dateFrom=2026-01-01&dateTo=2026-01-31&groupBy=campaign`,
    bearer(other.token),
  );
  assert.is(data.status, 200);
  // Its requests since have charged its quota: every other table holds what it held.
  const withoutQuota = (rows: Record<string, number>) =>
    Object.fromEntries(Object.entries(rows).filter(([table]) => !table.startsWith('quota_')));
  assert.equal(
    withoutQuota(await rowsOf(t.db.sql, other.org)),
    withoutQuota(before),
    "the other organization's rows are all there",
  );

  const again = await run(t, ['org', 'delete', '--org', d.org, '--yes']);
  assert.is(again.code, 2);
  assert.match(again.stderr, /no organization/);
});

it("a deleted organization's live token is 401 invalid-token from the moment the delete commits, never 503", async ({
  t,
}) => {
  const gone = await tenant(t);
  const { report } = await fixtureReport(t, gone.org);
  const data = `/v1/reports/${report}/data?dateFrom=2026-01-01&dateTo=2026-01-31&groupBy=campaign`;
  // Warm: its plan is in memory and its client holds a lease of quota.
  for (let i = 0; i < 3; i++) assert.is((await t.fetch(data, bearer(gone.token))).status, 200);
  const done = await run(t, ['org', 'delete', '--org', gone.org, '--yes']);
  assert.is(done.code, 0, done.stderr);
  for (let step = 0; step < 4; step++) {
    for (const path of ['/v1/me', '/v1/reports', data]) {
      const res = await t.fetch(path, bearer(gone.token));
      const body = await res.text();
      assert.is(res.status, 401, `${path} ${step * 400} ms after the delete: ${res.status} ${body}`);
      assert.match(JSON.parse(body).type, /invalid-token$/);
    }
    t.clock.advance(400);
  }
  for (const path of ['/v1/me', '/v1/reports', data])
    assert.is((await t.fetch(path, bearer(gone.token))).status, 401, path);
});

it('demo --remove deletes what is left of the demo, and then has nothing to remove', async ({ t, d }) => {
  const first = await run(t, ['demo', '--remove', '--json']);
  assert.is(first.code, 0, first.stderr);
  assert.equal(JSON.parse(first.stdout), { removed: [d.otherOrg] });
  assert.equal(await rowsOf(t.db.sql, d.otherOrg), {});
  const second = await run(t, ['demo', '--remove', '--json']);
  assert.equal(JSON.parse(second.stdout), { removed: [] });
});

it.run();
