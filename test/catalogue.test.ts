import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { testApp, type TestApp } from './support/app.ts';
import { bearer, cli, createClient, getToken } from './support/fixtures.ts';
import { seedDemo, type DemoIds } from './support/demo.ts';

type Ctx = { t: TestApp; d: DemoIds; get(path: string, token?: string): Promise<Response> };
const it = suite<Ctx>('catalogue endpoints');
it.before(async (ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400' }, demo: true });
  ctx.d = await seedDemo(ctx.t);
  ctx.get = (path, token = ctx.d.token) => ctx.t.fetch(path, bearer(token));
});
it.after(async (ctx) => ctx.t.close());

const body = async (res: Response, status = 200) => {
  assert.is(res.status, status, await res.clone().text());
  return res.json();
};

it("/v1/organizations is a list of one: the client's organization", async ({ get, d }) => {
  const page = await body(await get('/v1/organizations'));
  assert.equal(Object.keys(page).sort(), ['data', 'hasMore', 'page', 'pageSize', 'totalCount']);
  assert.is(page.totalCount, 1);
  assert.is(page.hasMore, false);
  assert.equal(Object.keys(page.data[0]).sort(), ['createdAt', 'currency', 'id', 'name', 'timeZone']);
  assert.is(page.data[0].id, d.org);
  assert.equal(await body(await get(`/v1/organizations/${d.org}`)), page.data[0]);
});

it('ad accounts carry the docs/decisions.md §5 fields and filter by platform', async ({ get, d }) => {
  const all = await body(await get(`/v1/organizations/${d.org}/ad-accounts`));
  assert.is(all.totalCount, 4);
  assert.equal(Object.keys(all.data[0]).sort(), [
    'connectionStatus',
    'currency',
    'externalId',
    'id',
    'lastFetchedAt',
    'name',
    'organizationId',
    'platform',
    'timeZone',
  ]);
  const names = all.data.map((a: { name: string }) => a.name);
  assert.equal(names, [...names].sort(), 'ordered by name');
  const meta = await body(await get(`/v1/organizations/${d.org}/ad-accounts?platform=meta-ads`));
  assert.equal(
    meta.data.map((a: { platform: string; currency: string }) => [a.platform, a.currency]),
    [['meta-ads', 'EUR']],
  );
  const tiktok = await body(await get(`/v1/organizations/${d.org}/ad-accounts?platform=tiktok-ads`));
  assert.is(tiktok.data[0].connectionStatus, 'expired');
  const bad = await body(await get(`/v1/organizations/${d.org}/ad-accounts?platform=myspace`), 400);
  assert.match(bad.detail, 'platform');
});

it('campaigns filter by ad account and by a case-insensitive name substring', async ({ get, d }) => {
  const all = await body(await get(`/v1/organizations/${d.org}/campaigns?pageSize=200`));
  assert.is(all.totalCount, 11);
  assert.equal(Object.keys(all.data[0]).sort(), [
    'adAccountId',
    'externalId',
    'id',
    'name',
    'organizationId',
    'platform',
    'status',
  ]);
  const byAccount = await body(await get(`/v1/organizations/${d.org}/campaigns?adAccountId=${d.accounts['meta-ads']}`));
  assert.is(byAccount.totalCount, 3);
  assert.ok(byAccount.data.every((c: { adAccountId: string }) => c.adAccountId === d.accounts['meta-ads']));
  const byName = await body(await get(`/v1/organizations/${d.org}/campaigns?name=SEARCH`));
  assert.equal(
    byName.data.map((c: { name: string }) => c.name),
    ['Brand search', 'Generic search'],
  );
  const literal = await body(await get(`/v1/organizations/${d.org}/campaigns?name=${encodeURIComponent('%')}`));
  assert.is(literal.totalCount, 0, 'the name filter is a plain substring, not a LIKE pattern');
});

it('segments list with their campaign counts', async ({ get, d }) => {
  const page = await body(await get(`/v1/organizations/${d.org}/segments`));
  assert.equal(
    page.data.map((s: { name: string }) => s.name),
    ['Brand', 'Performance', 'Video'],
  );
  assert.equal(Object.keys(page.data[0]).sort(), ['campaignCount', 'description', 'id', 'name', 'organizationId']);
  assert.ok(page.data.every((s: { campaignCount: number }) => s.campaignCount > 0));
});

it("metric catalogues: the system one, and the organization's with its custom metrics", async ({ get, d }) => {
  const system = await body(await get('/v1/metrics'));
  assert.is(system.totalCount, 15);
  const ctr = system.data.find((m: { name: string }) => m.name === 'ctr');
  assert.equal(ctr, {
    name: 'ctr',
    displayName: 'Click-through rate',
    kind: 'percent',
    unit: 'percent',
    system: true,
    conversionDerived: false,
    description: ctr.description,
  });
  const roas = system.data.find((m: { name: string }) => m.name === 'roas');
  assert.equal([roas.kind, roas.conversionDerived], ['ratio', true]);
  const org = await body(await get(`/v1/organizations/${d.org}/metrics`));
  assert.is(org.totalCount, 17);
  const custom = org.data.filter((m: { system: boolean }) => !m.system);
  assert.equal(
    custom.map((m: { name: string; formula: string }) => [m.name, m.formula]),
    [
      ['cost_per_view', 'spend / video_views'],
      ['engagement_rate', '(clicks + video_views) / impressions * 100'],
    ],
  );
});

it('reports list what the client may read, and one definition', async ({ get, d }) => {
  const page = await body(await get('/v1/reports'));
  assert.is(page.totalCount, 5);
  const definition = await body(await get(`/v1/reports/${d.reports['Segment overview']}`));
  assert.equal(Object.keys(definition).sort(), [
    'adAccountIds',
    'createdAt',
    'currency',
    'description',
    'groupings',
    'id',
    'kind',
    'metrics',
    'name',
    'organizationId',
    'segmentIds',
    'updatedAt',
  ]);
  assert.is(definition.kind, 'segment');
  assert.is(definition.segmentIds.length, 3);
  assert.equal(
    page.data.find((r: { id: string }) => r.id === definition.id),
    definition,
  );
});

for (const value of ['201', '0', 'abc', '-1', '1.5', '']) {
  it(`pageSize=${value} is refused with 400 invalid-parameter, never clamped`, async ({ get }) => {
    const problem = await body(await get(`/v1/reports?pageSize=${value}`), 400);
    assert.match(problem.type, /\/invalid-parameter$/);
    assert.match(problem.detail, 'pageSize');
  });
}

it('page=0 and a repeated page are refused', async ({ get }) => {
  assert.match((await body(await get('/v1/reports?page=0'), 400)).detail, 'page');
  assert.match((await body(await get('/v1/reports?page=1&page=2'), 400)).detail, 'page');
});

it('paging walks the list with hasMore, and a page past the end is empty with the total', async ({ get }) => {
  const first = await body(await get('/v1/reports?pageSize=2'));
  const third = await body(await get('/v1/reports?pageSize=2&page=3'));
  const past = await body(await get('/v1/reports?pageSize=2&page=9'));
  assert.equal([first.data.length, first.hasMore, third.data.length, third.hasMore], [2, true, 1, false]);
  assert.equal([past.data, past.totalCount, past.hasMore, past.page], [[], 5, false, 9]);
  const all = await body(await get('/v1/reports?pageSize=200'));
  const walked = [...first.data, ...(await body(await get('/v1/reports?pageSize=2&page=2'))).data, ...third.data];
  assert.equal(
    walked.map((r: { id: string }) => r.id),
    all.data.map((r: { id: string }) => r.id),
    'stable order',
  );
});

it('the last allowed page at the largest page size is an empty page on every list, not an overflow', async ({
  get,
  d,
}) => {
  // (page - 1) * pageSize passes 2^31 long before page's own bound of 100,000,000.
  const lists = [
    '/v1/organizations',
    '/v1/metrics',
    '/v1/reports',
    'ad-accounts',
    'segments',
    'campaigns',
    'metrics',
  ].map((path) => (path.startsWith('/') ? path : `/v1/organizations/${d.org}/${path}`));
  for (const path of lists) {
    for (const query of ['page=100000000&pageSize=200', 'page=42949674']) {
      const past = await body(await get(`${path}?${query}`));
      assert.equal([past.data, past.hasMore], [[], false], `${path}?${query}`);
    }
  }
});

const scoped: [string, string][] = [
  ['/v1/organizations', 'organizations:read'],
  ['/v1/organizations/ORG', 'organizations:read'],
  ['/v1/organizations/ORG/ad-accounts', 'ad-accounts:read'],
  ['/v1/organizations/ORG/segments', 'segments:read'],
  ['/v1/organizations/ORG/campaigns', 'campaigns:read'],
  ['/v1/organizations/ORG/metrics', 'reports:read'],
  ['/v1/metrics', 'reports:read'],
  ['/v1/reports', 'reports:read'],
  ['/v1/reports/REPORT', 'reports:read'],
];
for (const [path, scope] of scoped) {
  it(`${path} needs ${scope}`, async (ctx) => {
    const { t, d, get } = ctx;
    const url = path.replace('ORG', d.org).replace('REPORT', d.reports['Monthly spend']);
    const others =
      'reports:read reports:data reports:export campaigns:read ad-accounts:read segments:read organizations:read'
        .split(' ')
        .filter((s) => s !== scope)
        .join(' ');
    const client = await createClient(t.db.sql, d.org, { scopes: `${scope} ${others}` });
    const without = await getToken(t, client, others);
    const problem = await body(await get(url, without), 403);
    assert.match(problem.type, /\/insufficient-scope$/);
    assert.match(problem.detail, scope);
    assert.is((await get(url, await getToken(t, client, scope))).status, 200);
  });
}

it.run();

// ---

const seen = suite<Ctx & { limited: string }>('visibility (docs/decisions.md §9)');
seen.before(async (ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400' }, demo: true });
  ctx.d = await seedDemo(ctx.t);
  ctx.get = (path, token = ctx.d.token) => ctx.t.fetch(path, bearer(token));
  const client = await createClient(ctx.t.db.sql, ctx.d.org, {
    reports: ctx.d.reports['Monthly spend'],
    adAccounts: ctx.d.accounts['google-ads'],
  });
  ctx.limited = await getToken(ctx.t, client);
});
seen.after(async (ctx) => ctx.t.close());

/** Two 404s must match in everything but the request's own path and trace. */
async function sameNotFound(a: Response, b: Response) {
  assert.is(a.status, 404);
  assert.is(b.status, 404);
  const [x, y] = [await a.json(), await b.json()];
  assert.match(x.type, /\/not-found$/);
  assert.equal({ ...x, traceId: 0, instance: 0 }, { ...y, traceId: 0, instance: 0 });
}

seen(
  'another organization, an unlisted report and a non-UUID id answer exactly like a nonexistent report',
  async ({ get, d, limited }) => {
    const missing = await get(`/v1/reports/${crypto.randomUUID()}`);
    for (const path of [
      `/v1/reports/${d.otherReport}`,
      `/v1/reports/${d.reports['Video performance']}`,
      '/v1/reports/not-a-uuid',
      "/v1/reports/1'%20or%201=1",
    ]) {
      await sameNotFound(await get(path, limited), missing.clone());
    }
  },
);

seen("another organization's paths answer exactly like a nonexistent organization", async ({ get, d }) => {
  for (const suffix of ['', '/ad-accounts', '/segments', '/campaigns', '/metrics']) {
    await sameNotFound(
      await get(`/v1/organizations/${d.otherOrg}${suffix}`),
      await get(`/v1/organizations/${crypto.randomUUID()}${suffix}`),
    );
    await sameNotFound(
      await get(`/v1/organizations/acme${suffix}`),
      await get(`/v1/organizations/${crypto.randomUUID()}${suffix}`),
    );
  }
});

seen('the allow-lists cut reports, ad accounts, campaigns and report definitions', async ({ get, d, limited }) => {
  const reports = await body(await get('/v1/reports', limited));
  assert.equal(
    reports.data.map((r: { name: string }) => r.name),
    ['Monthly spend'],
  );
  assert.equal(reports.data[0].adAccountIds, [d.accounts['google-ads']], 'unlisted ad accounts are not shown');
  const accounts = await body(await get(`/v1/organizations/${d.org}/ad-accounts`, limited));
  assert.equal(
    accounts.data.map((a: { id: string }) => a.id),
    [d.accounts['google-ads']],
  );
  const campaigns = await body(await get(`/v1/organizations/${d.org}/campaigns`, limited));
  assert.is(campaigns.totalCount, 4);
  assert.ok(campaigns.data.every((c: { adAccountId: string }) => c.adAccountId === d.accounts['google-ads']));
});

seen('a filter naming something out of reach gives an empty page, not an error', async ({ get, d, limited }) => {
  const unlisted = await body(
    await get(`/v1/organizations/${d.org}/campaigns?adAccountId=${d.accounts['meta-ads']}`, limited),
  );
  assert.equal([unlisted.data, unlisted.totalCount], [[], 0]);
  const foreign = await body(await get(`/v1/organizations/${d.org}/campaigns?adAccountId=${d.otherAccount}`));
  assert.equal([foreign.data, foreign.totalCount], [[], 0]);
  const otherOrg = await body(await get(`/v1/reports?organizationId=${d.otherOrg}`));
  assert.equal([otherOrg.data, otherOrg.totalCount], [[], 0]);
  const ownOrg = await body(await get(`/v1/reports?organizationId=${d.org}`));
  assert.is(ownOrg.totalCount, 5);
});

seen('a malformed filter is a 400, not an empty page', async ({ get, d }) => {
  const problem = await body(await get(`/v1/organizations/${d.org}/campaigns?adAccountId=nope`), 400);
  assert.match(problem.detail, 'adAccountId');
});

seen('running demo again keeps one demo organization and issues a fresh secret that works', async ({ t, d }) => {
  const again = await cli(t.db.sql, ['demo'], t.clock.now);
  assert.is(again.organizationId, d.org);
  assert.is(again.clientId, d.clientId);
  const [row] = await t.db.sql`select count(*)::int as n from organizations where name = 'Readout Demo'`;
  assert.is(row.n, 1);
  const [facts] = await t.db
    .sql`select count(*)::int as n, count(distinct day)::int as days from facts where organization_id = ${d.org}`;
  assert.ok(facts.days >= 400, `${facts.days} days of facts`);
  assert.is((await t.fetch('/v1/me', bearer(await getToken(t, { ...again, secretId: '' })))).status, 200);
});

seen.run();
