import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { storePlanReader, type PlanReader } from '../src/billing/plans.ts';
import { testApp, type TestApp } from './support/app.ts';
import { bearer, cli, tenant } from './support/fixtures.ts';

const it = suite<{ t: TestApp }>('plans and lock');
it.before(async (ctx) => {
  ctx.t = await testApp();
});
it.after(async (ctx) => ctx.t.close());

async function problem(res: Response) {
  const body = await res.json();
  return { status: res.status, type: body.type.split('/').pop(), detail: body.detail, body };
}

it('/v1/me shows a healthy enterprise plan and the live quota', async ({ t }) => {
  const { token, client } = await tenant(t);
  const body = await (await t.fetch('/v1/me', bearer(token))).json();
  assert.is(body.clientId, client.clientId);
  assert.equal(body.plan, { code: 'enterprise', state: 'healthy' });
  assert.equal(body.quota, { limitPerHour: 10000, remaining: 10000, resetAt: '2026-03-10T11:00:00.000Z', state: 'ok' });
  assert.equal(body.scopes.length, 7);
});

for (const [plan, name] of [
  ['starter', 'Starter'],
  ['growth', 'Growth'],
]) {
  it(`a ${plan} plan is refused with plan-feature-required naming the plan; /v1/me still answers`, async ({ t }) => {
    const { token } = await tenant(t, { plan });
    const p = await problem(await t.fetch('/v1/metrics', bearer(token)));
    assert.is(p.status, 403);
    assert.is(p.type, 'plan-feature-required');
    assert.match(p.detail, `The ${name} plan does not include API access.`);
    const me = await t.fetch('/v1/me', bearer(token));
    assert.is(me.status, 200);
    assert.is((await me.json()).plan.code, plan);
  });
}

it('a locked subscription answers subscription-locked at once, but /v1/me and /v1/health keep answering', async ({
  t,
}) => {
  const { token, org } = await tenant(t);
  assert.is((await t.fetch('/v1/metrics', bearer(token))).status, 200);
  await cli(t.db.sql, ['subscription', 'lock', '--org', org]);
  const p = await problem(await t.fetch('/v1/metrics', bearer(token)));
  assert.equal([p.status, p.type], [403, 'subscription-locked']);
  assert.is((await t.fetch('/v1/me', bearer(token))).status, 200);
  assert.is((await t.fetch('/v1/health')).status, 200);
  await cli(t.db.sql, ['subscription', 'unlock', '--org', org]);
  assert.is((await t.fetch('/v1/metrics', bearer(token))).status, 200);
});

it('plan set changes the plan and budget immediately', async ({ t }) => {
  const { token, org } = await tenant(t);
  const out = await cli(t.db.sql, ['plan', 'set', '--org', org, '--plan', 'business', '--budget', '7']);
  assert.equal(out, { organizationId: org, plan: 'business', limitPerHour: 7 });
  const res = await t.fetch('/v1/metrics', bearer(token));
  assert.is(res.headers.get('ratelimit-policy'), '"hourly";q=7;w=3600');
});

it.run();

// ---

type Billing = { t: TestApp; failing: boolean; token: string };
const billing = suite<Billing>('plan states');
billing.before(async (ctx) => {
  let read: PlanReader | undefined;
  ctx.failing = false;
  ctx.t = await testApp({
    // The walk through the states takes over an hour of clock; the token must outlive it.
    env: { TOKEN_TTL_S: '86400' },
    readPlan: (org) => (ctx.failing ? Promise.reject(new Error('billing store unreachable')) : read!(org)),
  });
  read = storePlanReader(ctx.t.db.sql);
  ctx.token = (await tenant(ctx.t)).token;
});
billing.after(async (ctx) => ctx.t.close());

billing('healthy → stale → unknown as the billing store stays away, driven by the clock', async (ctx) => {
  const { t } = ctx;
  const state = async () => (await (await t.fetch('/v1/me', bearer(ctx.token))).json()).plan.state;
  assert.is(await state(), 'healthy');
  ctx.failing = true;
  t.clock.advance(4 * 60_000);
  assert.is(await state(), 'healthy', 'confirmed within five minutes');
  assert.is((await t.fetch('/v1/metrics', bearer(ctx.token))).status, 200);
  t.clock.advance(2 * 60_000);
  assert.is(await state(), 'stale');
  const served = await t.fetch('/v1/metrics', bearer(ctx.token));
  assert.is(served.status, 200, 'the snapshot is still honoured');
  t.clock.advance(55 * 60_000);
  const me = await t.fetch('/v1/me', bearer(ctx.token));
  assert.is(me.status, 200);
  assert.is((await me.json()).plan.state, 'unknown');
  const p = await problem(await t.fetch('/v1/metrics', bearer(ctx.token)));
  assert.equal([p.status, p.type], [503, 'billing-unavailable']);
  assert.type(p.body.retryAfterSeconds, 'number');
  ctx.failing = false;
  t.clock.advance(1000);
  assert.is(await state(), 'healthy', 'recovers by itself');
});

billing.run();
