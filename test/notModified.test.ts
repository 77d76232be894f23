// A dashboard refreshing an unchanged report: report data with If-None-Match that still matches is 304 and costs
// nothing (docs/decisions.md §4), from the report as a read begun after the request came finds it (its fingerprint,
// migration 023), so a write committed before the request always turns it into a 200.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { testApp, type TestApp } from './support/app.ts';
import { bearer, tenant } from './support/fixtures.ts';
import { fixtureReport } from './support/importFixture.ts';

type Ctx = { t: TestApp; org: string; token: string; url: string; etag: string };
const it = suite<Ctx>('report data 304');
const JAN = 'dateFrom=2026-01-01&dateTo=2026-01-31&groupBy=campaign';

it.before.each(async (ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400' } });
  Object.assign(ctx, await tenant(ctx.t));
  const { report } = await fixtureReport(ctx.t, ctx.org);
  ctx.url = `/v1/reports/${report}/data?${JAN}`;
  ctx.etag = (await ctx.t.fetch(ctx.url, bearer(ctx.token))).headers.get('etag')!;
});
it.after.each(async (ctx) => ctx.t.close());

const refresh = (ctx: Ctx, etag = ctx.etag) =>
  ctx.t.fetch(ctx.url, { headers: { authorization: `Bearer ${ctx.token}`, 'if-none-match': etag } });

it('many 304s at once, charged from a lease or from the store, cost nothing', async (ctx) => {
  const me = async () => (await (await ctx.t.fetch('/v1/me', bearer(ctx.token))).json()).quota.remaining;
  const start = await me();
  for (let round = 0; round < 5; round++) {
    const answers = await Promise.all(Array.from({ length: 8 }, () => refresh(ctx)));
    for (const res of answers) {
      assert.is(res.status, 304);
      assert.is(res.headers.get('etag'), ctx.etag);
    }
  }
  // The leases go back to the store: the standing is the one before.
  await new Promise((resolve) => setTimeout(resolve, 400));
  assert.is(await me(), start);
  const line = ctx.t.logs.at(-2)!;
  assert.equal([line.status, line.cost], [304, 0]);
});

it('a write committed before the request is seen: the changed answer is a 200 with its new ETag', async (ctx) => {
  for (const write of [
    () => ctx.t.db.sql`update facts set clicks = clicks + 1 where day = '2026-01-05'`,
    () => ctx.t.db.sql`update reports set metrics = array['impressions'] where organization_id = ${ctx.org}`,
    () => ctx.t.db.sql`update ad_accounts set last_fetched_at = now() where organization_id = ${ctx.org}`,
  ]) {
    assert.is((await refresh(ctx)).status, 304);
    await write();
    const res = await refresh(ctx);
    assert.is(res.status, 200);
    assert.is.not(res.headers.get('etag'), ctx.etag);
    ctx.etag = res.headers.get('etag')!;
  }
});

it('a weak comparison, or the ETag among others, matches (RFC 9110 §13.1.2)', async (ctx) => {
  assert.is((await refresh(ctx, `"x", ${ctx.etag.slice(2)}`)).status, 304);
  assert.is((await refresh(ctx, 'W/"other"')).status, 200);
});

it.run();
