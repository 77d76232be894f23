// On Node, a client's first page of reports is answered from this process's memory without the Fetch pipeline
// (app.ts, keptList): the pipeline's own answer, charge and log line when every check passes from memory, and nothing
// (the pipeline answers, and refuses) whenever a check would wait or refuse.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { testApp, type TestApp } from './support/app.ts';
import { bearer, cli, tenant } from './support/fixtures.ts';

type Ctx = { t: TestApp; org: string; client: { clientId: string }; token: string };
const it = suite<Ctx>('kept first page of reports');
it.before.each(async (ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400' }, demo: true });
  Object.assign(ctx, await tenant(ctx.t));
});
it.after.each(async (ctx) => ctx.t.close());

const direct = async (ctx: Ctx, url = '/v1/reports', headers: Record<string, string> = {}) =>
  await ctx.t.app.direct('GET', url, (name) => ({ authorization: `Bearer ${ctx.token}`, ...headers })[name]);

/** Requests at once, until the client's charges take a lease (billing/quota/leases.ts) and its page is kept. */
async function kept(ctx: Ctx) {
  for (let i = 0; i < 10 && !(await direct(ctx)); i++)
    await Promise.all(Array.from({ length: 8 }, () => ctx.t.fetch('/v1/reports', bearer(ctx.token))));
  const answer = await direct(ctx);
  assert.ok(answer, 'answered directly once the client holds a lease and its page is kept');
  return answer!;
}

const remaining = (ratelimit: string) => Number(/r=(\d+)/.exec(ratelimit)![1]);

it("is the pipeline's answer, charge and log line", async (ctx) => {
  assert.is(await direct(ctx), undefined, 'a first request: nothing kept, no lease');
  await kept(ctx);
  const piped = await ctx.t.fetch('/v1/reports', bearer(ctx.token));
  const answer = (await direct(ctx))!;
  assert.is(answer.status, piped.status);
  const body = await piped.text();
  assert.is(answer.body, body);
  const header = (name: string) => answer.headers[answer.headers.indexOf(name) + 1];
  assert.equal(
    answer.headers.filter((_, i) => i % 2 === 0).sort(),
    [...new Set([...piped.headers.keys(), 'content-length'])].sort(),
    'the same headers',
  );
  for (const name of ['content-type', 'ratelimit-policy']) assert.is(header(name), piped.headers.get(name), name);
  assert.is(header('content-length'), String(Buffer.byteLength(body)));
  assert.is(remaining(header('ratelimit')), remaining(piped.headers.get('ratelimit')!) - 1, 'charged 1');
  assert.match(header('traceparent'), /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  const { time: _a, ms: _b, traceId: _c, ...line } = ctx.t.logs.at(-1)!;
  const { time: _d, ms: _e, traceId: _f, ...pipedLine } = ctx.t.logs.at(-2)!;
  assert.equal(line, pipedLine, 'the same log line');
  // Every unit charged is counted: the standing /v1/me reports once the leases are back.
  for (let i = 0; i < 5; i++) await direct(ctx);
  await new Promise((resolve) => setTimeout(resolve, 400));
  const after = await ctx.t.fetch('/v1/reports', bearer(ctx.token));
  assert.is(remaining(after.headers.get('ratelimit')!), remaining(header('ratelimit')) - 6);
});

it('anything else goes through the pipeline', async (ctx) => {
  await kept(ctx);
  for (const url of ['/v1/reports?page=1', '/v1/reports/', '/v1/reports?pageSize=50', '/v1/me'])
    assert.is(await direct(ctx, url), undefined, url);
  assert.is(await ctx.t.app.direct('HEAD', '/v1/reports', () => `Bearer ${ctx.token}`), undefined, 'HEAD');
  assert.is(await direct(ctx, '/v1/reports', { authorization: 'Bearer nope' }), undefined, 'another token');
  assert.is(await direct(ctx, '/v1/reports', { authorization: '' }), undefined, 'no token');
  const other = await tenant(ctx.t, { scopes: 'campaigns:read' });
  assert.is(await direct({ ...ctx, ...other }), undefined, 'a token without reports:read');
});

it('a revoked client is refused by the pipeline, never answered from memory', async (ctx) => {
  await kept(ctx);
  await cli(ctx.t.db.sql, ['client', 'revoke', '--client', ctx.client.clientId]);
  ctx.t.clock.advance(1000); // the revocation list is re-read within a second
  assert.is(await direct(ctx), undefined, 'the list is due: the pipeline waits for it');
  assert.is((await ctx.t.fetch('/v1/reports', bearer(ctx.token))).status, 401);
  assert.is(await direct(ctx), undefined, 'revoked');
});

it('a locked subscription or a plan change is the pipeline’s to answer', async (ctx) => {
  await kept(ctx);
  await cli(ctx.t.db.sql, ['subscription', 'lock', '--org', ctx.org]);
  ctx.t.clock.advance(1000); // plans are re-read every second
  assert.is(await direct(ctx), undefined, 'the plan is due: the pipeline waits for it');
  assert.is((await ctx.t.fetch('/v1/reports', bearer(ctx.token))).status, 403);
  assert.is(await direct(ctx), undefined, 'locked');
});

it('a spent budget is 429 from the pipeline', async (ctx) => {
  const answer = await kept(ctx);
  const left = remaining(answer.headers[answer.headers.indexOf('ratelimit') + 1]);
  await cli(ctx.t.db.sql, ['plan', 'set', '--org', ctx.org, '--plan', 'business', '--budget', String(10000 - left)]);
  // What the lease holds was charged already; once spent, nothing more is answered from memory.
  let served = 0;
  while ((await direct(ctx)) && served < 10000) served++;
  assert.ok(served < 2000, `the lease ran out (${served} answered from it)`);
  assert.is((await ctx.t.fetch('/v1/reports', bearer(ctx.token))).status, 429);
});

it.run();
