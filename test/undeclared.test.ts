// docs/decisions.md §8: on every /v1 operation, a query parameter the OpenAPI document does not declare is 400
// invalid-parameter naming it, with the declared spelling when only the case differs. The walk is the document's.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import openapi from '../spec/openapi.json' with { type: 'json' };
import { testApp, type TestApp } from './support/app.ts';
import { bearer, tenant } from './support/fixtures.ts';
import { fixtureReport } from './support/importFixture.ts';

type Ctx = { t: TestApp; token: string; org: string; report: string };
const it = suite<Ctx>('undeclared parameters');
it.before(async (ctx) => {
  ctx.t = await testApp();
  const { org, token } = await tenant(ctx.t);
  Object.assign(ctx, { org, token }, await fixtureReport(ctx.t, org));
});
it.after(async (ctx) => ctx.t.close());

const operations = Object.entries(openapi.paths as Record<string, { get?: unknown }>)
  .filter(([path, item]) => path.startsWith('/v1/') && item.get)
  .map(([path]) => path);
const DATES = 'dateFrom=2026-01-01&dateTo=2026-01-31';

it('every operation refuses a parameter it does not declare, naming it', async ({ t, token, org, report }) => {
  assert.ok(operations.length >= 16, `${operations.length} operations`);
  for (const path of operations) {
    const url = path.replace('{organizationId}', org).replace('{reportId}', report);
    const dates = url.includes('/data') || url.includes('/export') ? `${DATES}&` : '';
    const res = await t.fetch(`${url}?${dates}foo=bar`, bearer(token));
    assert.is(res.status, 400, path);
    const body = await res.json();
    assert.is(body.type.endsWith('/invalid-parameter'), true, path);
    assert.ok(body.detail.startsWith('foo is not a parameter of GET '), `${path}: ${body.detail}`);
    // The same request without it is answered.
    const fine = await t.fetch(`${url}${dates ? `?${dates.slice(0, -1)}` : ''}`, bearer(token));
    assert.is(fine.status, 200, `${path} without the parameter`);
    await fine.arrayBuffer();
  }
});

it('a misspelt name is answered with the declared spelling; page on the data is refused', async ({
  t,
  token,
  report,
}) => {
  const groupby = await (await t.fetch(`/v1/reports/${report}/data?${DATES}&groupby=campaign`, bearer(token))).json();
  assert.ok(groupby.detail.includes('did you mean groupBy?'), groupby.detail);
  const page = await t.fetch(`/v1/reports/${report}/data?${DATES}&page=2`, bearer(token));
  assert.is(page.status, 400);
  assert.ok((await page.json()).detail.startsWith('page is not a parameter'));
  const pagesize = await (await t.fetch('/v1/reports?pagesize=10', bearer(token))).json();
  assert.ok(pagesize.detail.includes('did you mean pageSize?'), pagesize.detail);
});

it('a name a letter or two away is answered with the nearest declared ones, and the full list', async ({
  t,
  token,
  report,
}) => {
  for (const [typed, meant] of [
    ['dateform=2026-01-01', 'dateFrom'],
    ['metrcs=spend', 'metrics'],
    ['groupBY=campaign', 'groupBy'],
    ['sortDsc=true', 'sortDesc'],
  ]) {
    const res = await t.fetch(`/v1/reports/${report}/data?${DATES}&${typed}`, bearer(token));
    assert.is(res.status, 400, typed);
    const { detail } = await res.json();
    assert.ok(detail.includes(`did you mean ${meant}?`), detail);
    assert.ok(detail.includes('It takes ') && detail.includes('dateTo'), detail);
  }
  const far = await (await t.fetch(`/v1/reports/${report}/data?${DATES}&colour=red`, bearer(token))).json();
  assert.not.ok(far.detail.includes('did you mean'), far.detail);
});

it('a refusal comes after authentication, as every parameter does (docs/decisions.md §4)', async ({ t }) => {
  assert.is((await t.fetch('/v1/reports?foo=bar')).status, 401);
  assert.is((await t.fetch('/v1/health?foo=bar')).status, 400);
});

it.run();
