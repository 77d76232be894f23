// On Node, report data with an If-None-Match that still matches is answered 304 without the Fetch pipeline
// (routes/keptAnswers.ts): the pipeline's own 304, refund and log line, from the report as a read begun after the
// request came finds it (its fingerprint, migration 023); and nothing (the pipeline answers, and refuses) whenever a
// check would wait or refuse.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../src/app.ts';
import type { DirectAnswer } from '../src/http/incoming.ts';
import { openDatabase } from '../src/store/open.ts';
import { testApp, type TestApp } from './support/app.ts';
import { bearer, cli, tenant } from './support/fixtures.ts';
import { fixtureReport } from './support/importFixture.ts';
import { tcpProxy } from './support/proxy.ts';

type Ctx = { t: TestApp; org: string; client: { clientId: string }; token: string; url: string; etag: string };
const it = suite<Ctx>('report data 304 answered directly');
const JAN = 'dateFrom=2026-01-01&dateTo=2026-01-31&groupBy=campaign';

it.before.each(async (ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400' } });
  Object.assign(ctx, await tenant(ctx.t));
  const { report } = await fixtureReport(ctx.t, ctx.org);
  ctx.url = `/v1/reports/${report}/data?${JAN}`;
  ctx.etag = (await ctx.t.fetch(ctx.url, bearer(ctx.token))).headers.get('etag')!;
});
it.after.each(async (ctx) => ctx.t.close());

const headersOf = (ctx: Ctx, more: Record<string, string> = {}): Record<string, string> => ({
  authorization: `Bearer ${ctx.token}`,
  'if-none-match': ctx.etag,
  ...more,
});
const direct = async (ctx: Ctx, url = ctx.url, more: Record<string, string> = {}) =>
  await ctx.t.app.direct('GET', url, (name) => headersOf(ctx, more)[name]);
const piped = (ctx: Ctx, url = ctx.url, more: Record<string, string> = {}) =>
  ctx.t.fetch(url, { headers: headersOf(ctx, more) });

/** Requests at once, until the client's charges take a lease (billing/quota/leases.ts). */
async function leased(ctx: Ctx): Promise<DirectAnswer> {
  for (let i = 0; i < 10; i++) {
    await Promise.all(Array.from({ length: 8 }, () => piped(ctx)));
    const answer = await direct(ctx);
    if (answer) return answer;
  }
  throw new Error('never answered directly: no lease taken');
}

const header = (answer: DirectAnswer, name: string) => answer.headers[answer.headers.indexOf(name) + 1];
const remaining = (ratelimit: string) => Number(/r=(\d+)/.exec(ratelimit)![1]);

it("is the pipeline's 304, refund and log line", async (ctx) => {
  assert.is(await direct(ctx), undefined, 'no lease yet: the store charges, so the pipeline answers');
  await leased(ctx);
  const before = ctx.t.logs.length;
  const answer = (await direct(ctx))!;
  const pipedLine = ctx.t.logs.length;
  const res = await piped(ctx);
  assert.is(res.status, 304);
  assert.is(answer.status, 304);
  assert.is(answer.body, '');
  assert.equal(answer.headers.filter((_, i) => i % 2 === 0).sort(), [...res.headers.keys()].sort(), 'the same headers');
  for (const name of ['etag', 'cache-control', 'vary', 'last-modified', 'ratelimit-policy'])
    assert.is(header(answer, name), res.headers.get(name), name);
  assert.is(remaining(header(answer, 'ratelimit')), remaining(res.headers.get('ratelimit')!), 'nothing charged');
  assert.match(header(answer, 'traceparent'), /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  assert.is(pipedLine, before + 1, 'one log line');
  const { time: _a, ms: _b, traceId: _c, ...line } = ctx.t.logs[before];
  const { time: _d, ms: _e, traceId: _f, ...pipelineLine } = ctx.t.logs.at(-1)!;
  assert.equal(line, pipelineLine, 'the same log line');
  // Nothing is charged: the standing /v1/me reports once the leases are back is the one before.
  const me = async () => (await (await ctx.t.fetch('/v1/me', bearer(ctx.token))).json()).quota.remaining;
  await new Promise((resolve) => setTimeout(resolve, 400));
  const start = await me();
  await leased(ctx);
  for (let i = 0; i < 5; i++) assert.is((await direct(ctx))?.status, 304);
  await new Promise((resolve) => setTimeout(resolve, 400));
  assert.is(await me(), start, 'the 304s cost nothing');
});

it('a write committed before the request is seen: a changed answer goes to the pipeline', async (ctx) => {
  await leased(ctx);
  await ctx.t.db.sql`update facts set clicks = clicks + 1 where day = '2026-01-05'`;
  assert.is(await direct(ctx), undefined, 'a fact written');
  assert.is((await piped(ctx)).status, 200);
  ctx.etag = (await ctx.t.fetch(ctx.url, bearer(ctx.token))).headers.get('etag')!;
  await leased(ctx);
  await ctx.t.db.sql`update reports set metrics = array['impressions'] where organization_id = ${ctx.org}`;
  assert.is(await direct(ctx), undefined, 'the report redefined');
  assert.is((await piped(ctx)).status, 200);
  ctx.etag = (await ctx.t.fetch(ctx.url, bearer(ctx.token))).headers.get('etag')!;
  await leased(ctx);
  await ctx.t.db.sql`update ad_accounts set last_fetched_at = now() where organization_id = ${ctx.org}`;
  assert.is(await direct(ctx), undefined, 'an ad account fetched');
  assert.is((await piped(ctx)).status, 200);
});

it('anything else goes through the pipeline', async (ctx) => {
  await leased(ctx);
  const path = ctx.url.split('?')[0];
  for (const url of [
    path,
    `${path}?${JAN}&interval=day`,
    `${path}?${JAN}&groupby=total`,
    `${path}?dateFrom=2026-01-31&dateTo=2026-01-01&groupBy=campaign`,
    `${path}?dateFrom=2026-02-30&dateTo=2026-03-01&groupBy=campaign`,
    `${path}?${JAN}&groupBy=total`,
    `${path}?${JAN}&sort=nothing`,
    `${path}?${JAN}&adAccountIds=${ctx.org}`,
    `${path}?${JAN}&nameFilter=%C3%A9t%C3%A9`,
    `${path}?${JAN}&nameFilter=a%20b`,
    `${path}?${JAN}&nameFilter=(a)`,
    `${path.replace('/data', '/export.csv')}?${JAN}`,
    `/v1/reports/00000000-0000-4000-8000-000000000000/data?${JAN}`,
  ]) {
    const answer = await direct(ctx, url);
    assert.is(answer, undefined, url);
  }
  assert.is(await direct(ctx, ctx.url, { 'if-none-match': '' }), undefined, 'no If-None-Match');
  assert.is(await direct(ctx, ctx.url, { 'if-none-match': 'W/"other"' }), undefined, 'another ETag');
  assert.is(await direct(ctx, ctx.url, { authorization: 'Bearer nope' }), undefined, 'another token');
  assert.is(await ctx.t.app.direct('HEAD', ctx.url, (name) => headersOf(ctx)[name]), undefined, 'HEAD');
  const other = await tenant(ctx.t, { scopes: 'reports:read' });
  assert.is(await direct({ ...ctx, ...other }), undefined, 'a token without reports:data');
  // The same report asked with its parameters in another order or a weak comparison is still answered.
  assert.is((await direct(ctx, ctx.url, { 'if-none-match': `"x", ${ctx.etag.slice(2)}` }))?.status, 304);
});

it('a revoked client, a locked subscription or a spent budget is the pipeline’s to refuse', async (ctx) => {
  await leased(ctx);
  await cli(ctx.t.db.sql, ['client', 'revoke', '--client', ctx.client.clientId]);
  ctx.t.clock.advance(1000); // the revocation list is re-read within a second
  assert.is(await direct(ctx), undefined, 'the list is due: the pipeline waits for it');
  assert.is((await piped(ctx)).status, 401);
  assert.is(await direct(ctx), undefined, 'revoked');

  const second = await tenant(ctx.t);
  Object.assign(ctx, second);
  const { report } = await fixtureReport(ctx.t, ctx.org);
  ctx.url = `/v1/reports/${report}/data?${JAN}`;
  ctx.etag = (await ctx.t.fetch(ctx.url, bearer(ctx.token))).headers.get('etag')!;
  await leased(ctx);
  await cli(ctx.t.db.sql, ['subscription', 'lock', '--org', ctx.org]);
  ctx.t.clock.advance(1000); // plans are re-read every second
  assert.is(await direct(ctx), undefined, 'the plan is due');
  assert.is((await piped(ctx)).status, 403);
  assert.is(await direct(ctx), undefined, 'locked');
  await cli(ctx.t.db.sql, ['subscription', 'unlock', '--org', ctx.org]);
  ctx.t.clock.advance(1000);
  await ctx.t.fetch('/v1/me', bearer(ctx.token));
  const answer = await leased(ctx);
  // What the lease holds was charged already: a budget spent to it answers no 304 from memory once it is gone.
  await cli(ctx.t.db.sql, ['plan', 'set', '--org', ctx.org, '--plan', 'business', '--budget', '1']);
  ctx.t.clock.advance(1000);
  await new Promise((resolve) => setTimeout(resolve, 400)); // the lease goes back to the store
  assert.is(answer.status, 304);
  assert.is(await direct(ctx), undefined, 'no lease covers it');
  assert.is((await piped(ctx)).status, 429);
});

it('a read the database does not answer ends at the deadline with the pipeline’s 503', async (ctx) => {
  const proxy = await tcpProxy(ctx.t.db.url);
  const db = await openDatabase({ databaseUrl: proxy.url, max: 4 });
  const app = createApp({
    sql: db.sql,
    config: { ...ctx.t.config, requestDeadlineMs: 500 },
    clock: () => ctx.t.clock.now,
    log: () => {},
  });
  try {
    const headers = headersOf(ctx);
    let answer: DirectAnswer | undefined;
    for (let i = 0; i < 10 && !answer; i++) {
      await Promise.all(Array.from({ length: 8 }, () => app(new Request(`http://x${ctx.url}`, { headers }))));
      proxy.set('stall');
      const started = Date.now();
      answer = await app.direct('GET', ctx.url, (name) => headers[name]);
      if (answer) assert.ok(Date.now() - started < 2000, 'answered by the deadline');
      proxy.set('pass');
    }
    assert.ok(answer, 'answered directly');
    assert.is(answer!.status, 503);
    assert.match(JSON.parse(answer!.body).type, /\/request-timeout$/);
  } finally {
    proxy.set('drop');
    await app.close().catch(() => {});
    await db.sql.end({ timeout: 1 }).catch(() => {});
    await proxy.close();
  }
});

it.run();
