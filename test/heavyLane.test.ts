// The per-client limit of heavy requests (docs/decisions.md §13) counts only requests that read facts: a 304 never
// does, and a request refused past the limit costs nothing.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { testApp, type TestApp } from './support/app.ts';
import { bearer, tenant } from './support/fixtures.ts';
import { fixtureReport } from './support/importFixture.ts';

const it = suite<{ t: TestApp }>('heavy requests per client');
it.before(async (ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400', HEAVY_PER_CLIENT: '1' } });
});
it.after(async (ctx) => ctx.t.close());

it('with its one place taken by an open download: a 304 is still answered, data is 429 uncharged', async ({ t }) => {
  const { org, token } = await tenant(t);
  const { report } = await fixtureReport(t, org);
  const data = `/v1/reports/${report}/data?dateFrom=2026-01-01&dateTo=2026-01-31&groupBy=campaign`;
  const etag = (await t.fetch(data, bearer(token))).headers.get('etag')!;
  // A download held open, unread: it keeps the client's one place until it ends.
  const download = await t.fetch(
    `/v1/reports/${report}/export.csv?dateFrom=2026-01-01&dateTo=2026-01-31&groupBy=campaign`,
    bearer(token),
  );
  assert.is(download.status, 200);
  try {
    const cached = await t.fetch(data, { headers: { authorization: `Bearer ${token}`, 'if-none-match': etag } });
    assert.is(cached.status, 304, 'a 304 reads no facts, so it does not count');
    const refused = await t.fetch(data, bearer(token));
    assert.is(refused.status, 429);
    const body = await refused.json();
    assert.ok(body.type.endsWith('/rate-limit-exceeded'));
    assert.match(body.detail, /at once/);
    assert.is(refused.headers.get('retry-after'), '1');
    assert.is(t.logs.at(-1)!.cost, 0, 'its charge was given back');
  } finally {
    await download.body!.cancel();
  }
  // The download over, its place is free again.
  assert.is((await t.fetch(data, bearer(token))).status, 200);
});

it.run();
