// Report lists and definitions are kept per organization's report version (migration 010): a kept answer is used
// while nothing changed, and any write to the reports, by whatever means, is seen by the next request.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { reportCache } from '../src/report/reportCache.ts';
import { testApp, type TestApp } from './support/app.ts';
import { bearer } from './support/fixtures.ts';
import { seedDemo, type DemoIds } from './support/demo.ts';

type Ctx = { t: TestApp; d: DemoIds; get(path: string): Promise<Response> };
const it = suite<Ctx>('kept report answers');
it.before.each(async (ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400' }, demo: true });
  ctx.d = await seedDemo(ctx.t);
  ctx.get = (path) => ctx.t.fetch(path, bearer(ctx.d.token));
});
it.after.each(async (ctx) => ctx.t.close());

const ok = async (res: Response) => {
  assert.is(res.status, 200, await res.clone().text());
  return res.json();
};
const names = async (res: Response) => (await ok(res)).data.map((r: { name: string }) => r.name);

/** A write the version triggers do not see: only a kept answer can still show the old value afterwards. */
async function unseenRename(t: TestApp, id: string, name: string) {
  await t.db.sql.begin(async (tx) => {
    await tx`set local session_replication_role = replica`;
    await tx`update reports set name = ${name} where id = ${id}`;
  });
}

it('a list or a definition is answered from memory while the reports are unchanged', async ({ t, d, get }) => {
  const id = d.reports['Monthly spend'];
  const list = await names(await get('/v1/reports?pageSize=200'));
  const one = await ok(await get(`/v1/reports/${id}`));
  await unseenRename(t, id, 'Renamed behind its back');
  assert.equal(await names(await get('/v1/reports?pageSize=200')), list, 'the kept list');
  assert.is((await ok(await get(`/v1/reports/${id}`))).name, one.name, 'the kept definition');
  // Another page size is another answer: read afresh.
  assert.ok((await names(await get('/v1/reports?pageSize=199'))).includes('Renamed behind its back'));
});

it('any write to reports, their ad accounts or segments is seen by the very next request', async ({ t, d, get }) => {
  const id = d.reports['Monthly spend'];
  await get('/v1/reports?pageSize=200');
  await get(`/v1/reports/${id}`);
  await t.db.sql`update reports set name = 'Monthly spend, renamed' where id = ${id}`;
  assert.ok((await names(await get('/v1/reports?pageSize=200'))).includes('Monthly spend, renamed'));
  assert.is((await ok(await get(`/v1/reports/${id}`))).name, 'Monthly spend, renamed');

  const before = (await ok(await get(`/v1/reports/${id}`))).adAccountIds as string[];
  await t.db.sql`delete from report_ad_accounts where report_id = ${id} and ad_account_id = ${before[0]}`;
  assert.equal((await ok(await get(`/v1/reports/${id}`))).adAccountIds, before.slice(1), 'a link removed');

  const segmentReport = d.reports['Segment overview'];
  const segments = (await ok(await get(`/v1/reports/${segmentReport}`))).segmentIds as string[];
  await t.db.sql`delete from report_segments where report_id = ${segmentReport} and segment_id = ${segments[0]}`;
  assert.equal(
    (await ok(await get(`/v1/reports/${segmentReport}`))).segmentIds,
    segments.slice(1),
    'a segment removed',
  );
});

it('a report that did not exist is found once it is made, and gone once it is deleted', async ({ t, d, get }) => {
  const id = crypto.randomUUID();
  assert.is((await get(`/v1/reports/${id}`)).status, 404);
  assert.is((await get(`/v1/reports/${id}`)).status, 404, 'the kept 404');
  await t.db.sql`insert into reports (id, organization_id, name, kind, currency, metrics) values
    (${id}, ${d.org}, 'Made just now', 'standard', 'USD', ${['spend']})`;
  assert.is((await ok(await get(`/v1/reports/${id}`))).name, 'Made just now');
  assert.ok((await names(await get('/v1/reports?pageSize=200'))).includes('Made just now'));
  await t.db.sql`delete from reports where id = ${id}`;
  assert.is((await get(`/v1/reports/${id}`)).status, 404);
  assert.not.ok((await names(await get('/v1/reports?pageSize=200'))).includes('Made just now'));
});

it("another organization's writes leave this one's kept answers in place", async ({ t, d, get }) => {
  const id = d.reports['Monthly spend'];
  const list = await names(await get('/v1/reports?pageSize=200'));
  await unseenRename(t, id, 'Renamed behind its back');
  await t.db.sql`update reports set name = 'Other, renamed' where id = ${d.otherReport}`;
  assert.equal(await names(await get('/v1/reports?pageSize=200')), list);
});

it('clients with different allow-lists never share an answer', async ({ t, d, get }) => {
  const { cli, getToken } = await import('./support/fixtures.ts');
  await get('/v1/reports?pageSize=200');
  const narrow = await cli(
    t.db.sql,
    [
      'client',
      'create',
      '--org',
      d.org,
      '--name',
      'narrow',
      '--scopes',
      'reports:read',
      '--reports',
      d.reports['Monthly spend'],
      '--ad-accounts',
      'all',
    ],
    t.clock.now,
  );
  const token = await getToken(t, { clientId: narrow.clientId, clientSecret: narrow.clientSecret, secretId: '' });
  const page = await ok(await t.fetch('/v1/reports?pageSize=200', bearer(token)));
  assert.equal(
    page.data.map((r: { id: string }) => r.id),
    [d.reports['Monthly spend']],
  );
});

it('the cache keeps the newest version of an entry, and stays inside its size by dropping the oldest', () => {
  const cache = reportCache(100);
  const kept = (key: string, atLeast: number) => {
    const body = cache.get(key, atLeast);
    return body && new TextDecoder().decode(body);
  };
  assert.is(new TextDecoder().decode(cache.set('a', 2, 'x'.repeat(40))), 'x'.repeat(40), 'set gives the bytes it kept');
  assert.is(kept('a', 2), 'x'.repeat(40));
  assert.is(kept('a', 3), undefined, 'older than asked');
  cache.set('a', 1, 'stale');
  assert.is(kept('a', 2), 'x'.repeat(40), 'an older read does not replace a newer one');
  cache.set('b', 5, 'y'.repeat(40));
  cache.set('c', 5, 'z'.repeat(40));
  assert.is(kept('a', 0), undefined, 'the oldest went to make room');
  assert.is(kept('b', 5), 'y'.repeat(40));
  assert.is(kept('c', 5), 'z'.repeat(40));
  cache.set('d', 5, 'w'.repeat(200));
  assert.is(kept('d', 0), undefined, 'too big to keep');
  // Bodies are kept as UTF-8 and counted in bytes: 50 two-byte characters do not fit beside their key.
  cache.set('e', 5, 'é'.repeat(50));
  assert.is(kept('e', 0), undefined, 'counted in bytes');
  cache.set('e', 5, 'é'.repeat(49));
  assert.is(kept('e', 5), 'é'.repeat(49));
});

it.run();
