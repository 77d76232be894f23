import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { QueryName } from '../src/store/queryNames.ts';
import { skipped } from './support/skip.ts';
import { testApp, type TestApp } from './support/app.ts';
import { onPostgres, LOCK_FACTS } from './support/database.ts';
import { bearer, cli, createClient, createOrg, getToken, tenant } from './support/fixtures.ts';
import { fixtureReport } from './support/importFixture.ts';
import { seedDemo, type DemoIds } from './support/demo.ts';
import { inlinedQueryText, query, queryAs, queryText, statement } from '../src/store/queries.ts';
import { EXPORT_SETTINGS } from '../src/report/formats/copyStatement.ts';
import { groupingFile } from '../src/report/query.ts';

type Fixture = { t: TestApp; org: string; token: string; report: string; google: string; meta: string };
const it = suite<Fixture>('report data on a known data set');
it.before(async (ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400' } });
  const { org, token } = await tenant(ctx.t);
  Object.assign(ctx, { org, token }, await fixtureReport(ctx.t, org));
});
it.after(async (ctx) => ctx.t.close());

const data = async (ctx: Fixture, query: string, token = ctx.token) => {
  const res = await ctx.t.fetch(`/v1/reports/${ctx.report}/data?${query}`, bearer(token));
  return { res, body: await res.json() };
};
const JAN = 'dateFrom=2026-01-01&dateTo=2026-01-31';

it("the record has the fields of the OpenAPI document's DataRecord", async (ctx) => {
  const { res, body } = await data(ctx, JAN);
  assert.is(res.status, 200);
  assert.equal(Object.keys(body).sort(), [
    'currency',
    'dataFreshness',
    'dateFrom',
    'dateTo',
    'groupBy',
    'metrics',
    'reportId',
    'rows',
  ]);
  assert.equal(
    [body.reportId, body.groupBy, body.currency, body.dateFrom, body.dateTo],
    [ctx.report, 'total', 'USD', '2026-01-01', '2026-01-31'],
  );
  assert.equal(body.metrics, ['impressions', 'clicks', 'spend', 'conversions', 'cpa', 'ctr', 'video_views']);
  assert.equal(
    body.rows,
    [
      {
        dimensions: {},
        metrics: {
          impressions: 6500,
          clicks: 180,
          spend: 400,
          conversions: 15,
          cpa: 400 / 15,
          ctr: (180 / 6500) * 100,
          video_views: 1200,
        },
      },
    ].map((r) => ({
      ...r,
      metrics: Object.fromEntries(Object.entries(r.metrics).map(([k, v]) => [k, Math.round(v * 1e6) / 1e6])),
    })),
  );
});

it("an EUR account's spend appears in the USD report at each day's rate, the latest earlier rate where a day has none", async (ctx) => {
  const { body } = await data(ctx, `${JAN}&groupBy=ad-account&metrics=spend`);
  const meta = body.rows.find((r: { dimensions: { platform: string } }) => r.dimensions.platform === 'meta-ads');
  // 100 EUR on each of 5, 6 and 7 January at 1.1, 1.1 (carried from the 5th) and 1.2.
  assert.is(meta.metrics.spend, 340);
  assert.equal(meta.dimensions, { adAccountId: ctx.meta, adAccountName: 'Meta EU', platform: 'meta-ads' });
});

it('campaign rows carry the dimension keys of docs/decisions.md §6, ordered by name', async (ctx) => {
  const { body } = await data(ctx, `${JAN}&groupBy=campaign`);
  assert.equal(
    body.rows.map((r: { dimensions: { campaignName: string } }) => r.dimensions.campaignName),
    ['Alpha, "the" first', 'Beta search', 'Gamma search'],
  );
  assert.equal(Object.keys(body.rows[0].dimensions).sort(), [
    'adAccountId',
    'campaignId',
    'campaignName',
    'externalId',
  ]);
  assert.is(body.rows[0].dimensions.externalId, 'C1');
});

it('a segment sums its campaigns, a campaign in two segments in both; money null when one of theirs is', async (ctx) => {
  const { org, token } = await tenant(ctx.t);
  const { report, meta } = await fixtureReport(ctx.t, org, { kind: 'segment' });
  const sql = ctx.t.db.sql;
  // A day before the first EUR rate: Alpha's money (its account is in EUR) cannot be converted to USD.
  await sql`insert into facts (organization_id, ad_account_id, campaign_id, creative_id, day, impressions, clicks, spend)
    select organization_id, ad_account_id, campaign_id, creative_id, '2026-01-02', 10, 1, 5 from facts
    where ad_account_id = ${meta} limit 1`;
  const campaigns =
    await sql`select id, external_id from campaigns where organization_id = ${org} order by external_id`;
  const ids = Object.fromEntries(campaigns.map((c) => [c.external_id, c.id as string]));
  const members: Record<string, string[]> = { 'Alpha and Beta': ['C1', 'C2'], 'Beta and Gamma': ['C2', 'C3'] };
  for (const [name, externals] of Object.entries(members)) {
    const [segment] = await sql`insert into segments (organization_id, name) values (${org}, ${name}) returning id`;
    for (const external of externals) {
      await sql`insert into segment_campaigns (organization_id, segment_id, campaign_id)
        values (${org}, ${segment.id}, ${ids[external]})`;
    }
    await sql`insert into report_segments (organization_id, report_id, segment_id) values (${org}, ${report}, ${segment.id})`;
  }
  await sql`update reports set groupings = array_append(groupings, 'segment') where id = ${report}`;
  const rows = async (groupBy: string) => {
    const res = await ctx.t.fetch(
      `/v1/reports/${report}/data?dateFrom=2026-01-01&dateTo=2026-02-28&groupBy=${groupBy}&metrics=impressions,spend`,
      bearer(token),
    );
    assert.is(res.status, 200);
    return (await res.json()).rows as { dimensions: Record<string, string>; metrics: Record<string, number | null> }[];
  };
  const byCampaign = new Map((await rows('campaign')).map((r) => [r.dimensions.campaignId, r.metrics]));
  const segments = await rows('segment');
  assert.equal(
    segments.map((r) => r.dimensions.segmentName),
    Object.keys(members),
  );
  for (const row of segments) {
    const parts = members[row.dimensions.segmentName].map((external) => byCampaign.get(ids[external])!);
    const spends = parts.map((m) => m.spend);
    assert.equal(row.metrics, {
      impressions: parts.reduce((n, m) => n + (m.impressions ?? 0), 0),
      spend: spends.includes(null) ? null : spends.reduce((n, m) => n! + m!, 0),
    });
  }
  assert.is(segments[0].metrics.spend, null, "Alpha's unconvertible day makes its segment's money null");
  assert.ok(segments[1].metrics.spend !== null);
});

it('a division by zero gives null', async (ctx) => {
  const { body } = await data(ctx, `${JAN}&groupBy=campaign&nameFilter=gamma`);
  assert.equal(body.rows[0].metrics.cpa, null);
  assert.equal(body.rows[0].metrics.clicks, 0);
});

it('month, video and creative groupings', async (ctx) => {
  const months = await data(ctx, 'dateFrom=2026-01-01&dateTo=2026-02-28&groupBy=month&metrics=impressions');
  assert.equal(months.body.rows, [
    { dimensions: { month: '2026-01' }, metrics: { impressions: 6500 } },
    { dimensions: { month: '2026-02' }, metrics: { impressions: 1000 } },
  ]);
  const videos = await data(ctx, `${JAN}&groupBy=video&metrics=video_views`);
  assert.equal(
    videos.body.rows.map((r: { dimensions: { creativeName: string } }) => r.dimensions.creativeName),
    ['Alpha video'],
  );
  // docs/decisions.md §6: the creative's own id on its platform, the join key outside the service.
  assert.equal(Object.keys(videos.body.rows[0].dimensions).sort(), [
    'campaignId',
    'creativeId',
    'creativeName',
    'externalId',
  ]);
  assert.type(videos.body.rows[0].dimensions.externalId, 'string');
  const creatives = await data(ctx, `${JAN}&groupBy=creative&metrics=impressions`);
  assert.is(creatives.body.rows.length, 3);
});

it('a long creative answer shows each creative of the accounts and campaigns asked, as the catalogue has it', async (ctx) => {
  // Migration 035 reads an answer's creatives by campaign: none may be missed or added, in a segment report either.
  const { org, token } = await tenant(ctx.t);
  const { report, google, meta } = await fixtureReport(ctx.t, org, { kind: 'segment' });
  const sql = ctx.t.db.sql;
  const [{ id: campaign }] = await sql`select id from campaigns where ad_account_id = ${google} order by external_id`;
  const [segment] = await sql`insert into segments (organization_id, name) values (${org}, 'One') returning id`;
  await sql`insert into segment_campaigns (organization_id, segment_id, campaign_id) values (${org}, ${segment.id}, ${campaign})`;
  await sql`insert into report_segments (organization_id, report_id, segment_id) values (${org}, ${report}, ${segment.id})`;
  const shown = async (id: string, query: string, bearerToken: string) => {
    const res = await ctx.t.fetch(`/v1/reports/${id}/data?${JAN}&metrics=impressions&${query}`, bearer(bearerToken));
    assert.is(res.status, 200);
    type Row = { dimensions: Record<string, string>; metrics: { impressions: number } };
    return ((await res.json()).rows as Row[]).map(({ dimensions: d, metrics }) =>
      [d.creativeId, d.creativeName, d.campaignId, d.externalId, metrics.impressions].join(' | '),
    );
  };
  const expected = async (accounts: string[], campaigns: string[] | null, video: boolean) =>
    (
      await sql`select cr.id, cr.name, cr.campaign_id, cr.external_id, sum(f.impressions)::int as impressions
        from facts f join creatives cr on cr.id = f.creative_id
        where f.ad_account_id = any(${accounts}::uuid[]) and f.day between '2026-01-01' and '2026-01-31'
          and (${campaigns}::uuid[] is null or f.campaign_id = any(${campaigns}::uuid[]))
          and (not ${video} or cr.format = 'video')
        group by cr.id order by cr.name, cr.id`
    ).map((r) => [r.id, r.name, r.campaign_id, r.external_id, r.impressions].join(' | '));
  for (const [account, label] of [
    [ctx.meta, 'meta'],
    [ctx.google, 'google'],
  ]) {
    const rows = await shown(ctx.report, `groupBy=creative&adAccountIds=${account}`, ctx.token);
    assert.equal(rows, await expected([account], null, false), label);
    assert.ok(rows.length > 0, label);
  }
  const both = [ctx.meta, ctx.google];
  assert.equal(await shown(ctx.report, 'groupBy=video', ctx.token), await expected(both, null, true));
  const inSegment = await shown(report, 'groupBy=creative', token);
  assert.equal(inSegment, await expected([google, meta], [campaign], false));
  assert.ok(inSegment.length > 0);
});

it('metrics: repeated or comma-separated, in the order asked', async (ctx) => {
  const repeated = await data(ctx, `${JAN}&metrics=clicks&metrics=impressions`);
  const comma = await data(ctx, `${JAN}&metrics=clicks,impressions`);
  assert.equal(repeated.body.metrics, ['clicks', 'impressions']);
  assert.equal(repeated.body.rows, comma.body.rows);
});

it('sort and sortDesc order campaign rows by a metric, nulls last', async (ctx) => {
  // Alpha's cpa is 340 / 15; Beta and Gamma have no conversions in January, so theirs are null.
  const asc = await data(ctx, `${JAN}&groupBy=campaign&sort=cpa`);
  assert.equal(
    asc.body.rows.map((r: { metrics: { cpa: number | null } }) => r.metrics.cpa),
    [22.666667, null, null],
  );
  const descCpa = await data(ctx, `${JAN}&groupBy=campaign&sort=cpa&sortDesc=true`);
  assert.equal(
    descCpa.body.rows.map((r: { metrics: { cpa: number | null } }) => r.metrics.cpa),
    [22.666667, null, null],
  );
  const desc = await data(ctx, `${JAN}&groupBy=campaign&sort=impressions&sortDesc=true`);
  assert.equal(
    desc.body.rows.map((r: { metrics: { impressions: number } }) => r.metrics.impressions),
    [3000, 3000, 500],
  );
  const ascImpressions = await data(ctx, `${JAN}&groupBy=campaign&sort=impressions`);
  assert.equal(
    ascImpressions.body.rows.map((r: { metrics: { impressions: number } }) => r.metrics.impressions),
    [500, 3000, 3000],
  );
});

it('nameFilter keeps rows whose own name contains it, in any case', async (ctx) => {
  const { body } = await data(ctx, `${JAN}&groupBy=campaign&nameFilter=SEARCH`);
  assert.equal(
    body.rows.map((r: { dimensions: { campaignName: string } }) => r.dimensions.campaignName),
    ['Beta search', 'Gamma search'],
  );
});

it('adAccountIds narrows the rows, and one out of reach narrows to nothing', async (ctx) => {
  const meta = await data(ctx, `${JAN}&groupBy=campaign&adAccountIds=${ctx.meta}`);
  assert.equal(
    meta.body.rows.map((r: { dimensions: { campaignName: string } }) => r.dimensions.campaignName),
    ['Alpha, "the" first'],
  );
  const nothing = await data(ctx, `${JAN}&adAccountIds=${crypto.randomUUID()}`);
  assert.is(nothing.res.status, 200);
  assert.equal(nothing.body.rows, []);
});

it('data costs one unit per ad account in scope (docs/decisions.md §4)', async (ctx) => {
  const remaining = (res: Response) => Number(/r=(\d+)/.exec(res.headers.get('ratelimit')!)![1]);
  const before = remaining((await data(ctx, JAN)).res);
  const both = remaining((await data(ctx, JAN)).res);
  const one = remaining((await data(ctx, `${JAN}&adAccountIds=${ctx.google}`)).res);
  assert.equal([before - both, both - one], [2, 1]);
});

it('a business-plan token never sees conversion metrics', async (ctx) => {
  const org = await createOrg(ctx.t.db.sql, { plan: 'business' });
  const token = await getToken(ctx.t, await createClient(ctx.t.db.sql, org));
  const { report } = await fixtureReport(ctx.t, org);
  const res = await ctx.t.fetch(`/v1/reports/${report}/data?${JAN}&groupBy=campaign`, bearer(token));
  const body = await res.json();
  assert.equal(body.metrics, ['impressions', 'clicks', 'spend', 'ctr', 'video_views']);
  const asked = await (
    await ctx.t.fetch(`/v1/reports/${report}/data?${JAN}&metrics=conversions,roas,clicks`, bearer(token))
  ).json();
  assert.equal(asked.metrics, ['clicks']);
  assert.equal(Object.keys(asked.rows[0].metrics), ['clicks']);
});

const rules: [string, string, RegExp][] = [
  ['no dateFrom', 'dateTo=2026-01-31', /dateFrom/],
  ['no dateTo', 'dateFrom=2026-01-01', /dateTo/],
  ['a date that does not exist', 'dateFrom=2025-02-30&dateTo=2025-03-01', /dateFrom/],
  ['a date in another format', 'dateFrom=01/02/2026&dateTo=2026-01-31', /dateFrom/],
  ['dateFrom after dateTo', 'dateFrom=2026-02-01&dateTo=2026-01-01', /dateFrom/],
  ['more than 400 days apart', 'dateFrom=2025-01-01&dateTo=2026-02-06', /400/],
  ['an unknown groupBy', `${JAN}&groupBy=weekday`, /groupBy/],
  [
    'a grouping the report cannot answer',
    `${JAN}&groupBy=segment`,
    /total, campaign, month, ad-account, video, creative/,
  ],
  ['an unknown metric', `${JAN}&metrics=clicks,likes`, /likes/],
  [
    'a mistyped metric, with the nearest names and all',
    `${JAN}&metrics=spend,cpx`,
    /cpx; did you mean cpa, cpc or cpm\?.*Known: impressions, clicks/,
  ],
  [
    'segmentIds on a standard report',
    `${JAN}&segmentIds=${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`,
    /segmentIds/,
  ],
  ['sort on the month grouping', `${JAN}&groupBy=month&sort=clicks`, /sort/],
  ['sort by a metric not returned', `${JAN}&groupBy=campaign&metrics=clicks&sort=spend`, /sort/],
  ['sortDesc that is not a boolean', `${JAN}&groupBy=campaign&sort=clicks&sortDesc=yes`, /sortDesc/],
  ['nameFilter on total', `${JAN}&nameFilter=x`, /nameFilter/],
  ['adAccountIds that are not UUIDs', `${JAN}&adAccountIds=abc`, /adAccountIds/],
  ['a repeated dateFrom', `${JAN}&dateFrom=2026-01-02`, /dateFrom/],
];
for (const [what, query, names] of rules) {
  it(`${what} is 400 invalid-parameter naming the parameter`, async (ctx) => {
    const { res, body } = await data(ctx, query);
    assert.is(res.status, 400, JSON.stringify(body));
    assert.match(body.type, /\/invalid-parameter$/);
    assert.match(body.detail, names);
  });
}

it('400 days apart is allowed', async (ctx) => {
  assert.is((await data(ctx, 'dateFrom=2025-01-01&dateTo=2026-02-05')).res.status, 200);
});

it('a weak ETag, and If-None-Match answers 304 with the charge refunded', async (ctx) => {
  const first = await data(ctx, JAN);
  const etag = first.res.headers.get('etag')!;
  assert.match(etag, /^W\/"/);
  const me = async () => (await (await ctx.t.fetch('/v1/me', bearer(ctx.token))).json()).quota.remaining;
  const before = await me();
  const res = await ctx.t.fetch(`/v1/reports/${ctx.report}/data?${JAN}`, {
    headers: { authorization: `Bearer ${ctx.token}`, 'if-none-match': etag },
  });
  assert.is(res.status, 304);
  assert.is(res.headers.get('etag'), etag);
  assert.is(await res.text(), '');
  assert.is(await me(), before, 'the 304 cost nothing');
  const other = await data(ctx, `${JAN}&groupBy=campaign`);
  assert.is.not(other.res.headers.get('etag'), etag);
});

it('many unchanged answers at once: each a 304, each charge given back exactly', async (ctx) => {
  const { org, token } = await tenant(ctx.t);
  const { report } = await fixtureReport(ctx.t, org);
  const url = `/v1/reports/${report}/data?${JAN}`;
  const etag = (await ctx.t.fetch(url, bearer(token))).headers.get('etag')!;
  const me = async () => (await (await ctx.t.fetch('/v1/me', bearer(token))).json()).quota.remaining;
  const before = await me();
  const headers = { authorization: `Bearer ${token}`, 'if-none-match': etag };
  const answers = await Promise.all(Array.from({ length: 20 }, () => ctx.t.fetch(url, { headers })));
  assert.equal(
    answers.map((res) => res.status),
    answers.map(() => 304),
  );
  // Concurrent charges take a lease; its unspent units go back within 250 ms (billing/quota/leases.ts).
  await new Promise((resolve) => setTimeout(resolve, 400));
  assert.is(await me(), before, 'twenty 304s cost nothing');
});

it('a spent budget answers 429 to If-None-Match as to anything, never a free 304', async (ctx) => {
  const { org, token } = await tenant(ctx.t);
  const { report } = await fixtureReport(ctx.t, org);
  const url = `/v1/reports/${report}/data?${JAN}`;
  // A budget of exactly one answer: the report's ad accounts (docs/decisions.md §4).
  const [{ accounts }] = await ctx.t.db
    .sql`select count(*)::int as accounts from report_ad_accounts where report_id = ${report}`;
  await cli(ctx.t.db.sql, ['plan', 'set', '--org', org, '--plan', 'business', '--budget', String(accounts)]);
  const first = await ctx.t.fetch(url, bearer(token));
  assert.is(first.status, 200);
  const etag = first.headers.get('etag')!;
  const res = await ctx.t.fetch(url, { headers: { authorization: `Bearer ${token}`, 'if-none-match': etag } });
  assert.is(res.status, 429);
  assert.is((await res.json()).type, `${ctx.t.config.problemsUrl}/rate-limit-exceeded`);
});

it('dataFreshness is the newest fetch, also sent as Last-Modified', async (ctx) => {
  const { res, body } = await data(ctx, JAN);
  assert.is(body.dataFreshness, new Date(ctx.t.clock.now).toISOString());
  assert.is(res.headers.get('last-modified'), new Date(ctx.t.clock.now).toUTCString());
});

it('dataFreshness is null when nothing ever loaded', async (ctx) => {
  const sql = ctx.t.db.sql;
  const [account] =
    await sql`insert into ad_accounts (organization_id, platform, external_id, name, currency) values (${ctx.org}, 'tiktok-ads', 'T9', 'Never loaded', 'USD') returning id`;
  const [report] =
    await sql`insert into reports (organization_id, name, kind, currency) values (${ctx.org}, 'Empty', 'standard', 'USD') returning id`;
  await sql`insert into report_ad_accounts (organization_id, report_id, ad_account_id) values (${ctx.org}, ${report.id}, ${account.id})`;
  const res = await ctx.t.fetch(`/v1/reports/${report.id}/data?${JAN}`, bearer(ctx.token));
  const body = await res.json();
  assert.is(body.dataFreshness, null);
  assert.is(res.headers.get('last-modified'), null);
});

it('every ad account in scope broken: 503 data-source-unavailable; one of two broken still serves', async (ctx) => {
  await cli(ctx.t.db.sql, ['account', 'connection', '--account', ctx.meta, '--status', 'expired']);
  assert.is((await data(ctx, JAN)).res.status, 200);
  const only = await data(ctx, `${JAN}&adAccountIds=${ctx.meta}`);
  assert.is(only.res.status, 503);
  assert.match(only.body.type, /\/data-source-unavailable$/);
  await cli(ctx.t.db.sql, ['account', 'connection', '--account', ctx.google, '--status', 'permission-lost']);
  assert.is((await data(ctx, JAN)).res.status, 503);
  await cli(ctx.t.db.sql, ['account', 'connection', '--account', ctx.meta, '--status', 'ok']);
  await cli(ctx.t.db.sql, ['account', 'connection', '--account', ctx.google, '--status', 'ok']);
});

it('an unknown report, and a report of another organization, are 404 after the parameters are checked', async (ctx) => {
  const missing = await ctx.t.fetch(`/v1/reports/${crypto.randomUUID()}/data?${JAN}`, bearer(ctx.token));
  assert.is(missing.status, 404);
  const badAndMissing = await ctx.t.fetch(`/v1/reports/${crypto.randomUUID()}/data?dateFrom=x`, bearer(ctx.token));
  assert.is(badAndMissing.status, 400);
});

it('reports:data is the scope it needs', async (ctx) => {
  const client = await createClient(ctx.t.db.sql, ctx.org);
  const res = await ctx.t.fetch(
    `/v1/reports/${ctx.report}/data?${JAN}`,
    bearer(await getToken(ctx.t, client, 'reports:read')),
  );
  assert.is(res.status, 403);
  assert.match((await res.json()).detail, 'reports:data');
});

it('on PostgreSQL the service queries without JIT, which compiles report queries for longer than they run', async (ctx) => {
  if (
    skipped(
      !onPostgres,
      'reportData',
      `on PostgreSQL the service queries without JIT, which compiles report queries for longer than they run`,
      'needs PostgreSQL: PGlite has no JIT',
    )
  )
    return;
  const [{ jit }] = await ctx.t.db.sql`show jit`;
  assert.is(jit, 'off');
});

it.run();

// ---

const demo = suite<{ t: TestApp; d: DemoIds }>('report data on the demo organization');
demo.before(async (ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400', HEAVY_PER_CLIENT: '64' }, demo: true });
  ctx.d = await seedDemo(ctx.t);
});
demo.after(async (ctx) => ctx.t.close());

const RANGE = 'dateFrom=2025-09-01&dateTo=2026-02-28';
const ADDITIVE = ['impressions', 'clicks', 'spend', 'conversions', 'conversion_value'];
/** A report data query's parameters over accounts, by name (as report/query.ts gives them); more: any others. */
const reportParams = (accountIds: string[], from: string, to: string, currency: string, more = {}) => ({
  accountIds,
  campaignIds: null,
  from,
  to,
  currency,
  nameFilter: null,
  video: false,
  ...more,
});
const close = (a: number, b: number, what: string) =>
  assert.ok(Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a)) * 10, `${what}: ${a} vs ${b}`);

for (const grouping of ['campaign', 'ad-account', 'month', 'creative']) {
  demo(`the total row equals the sum of the ${grouping} rows for additive metrics`, async ({ t, d }) => {
    const url = (g: string) => `/v1/reports/${d.reports['Cross-channel performance']}/data?${RANGE}&groupBy=${g}`;
    const total = (await (await t.fetch(url('total'), bearer(d.token))).json()).rows[0].metrics;
    const rows = (await (await t.fetch(url(grouping), bearer(d.token))).json()).rows;
    assert.ok(rows.length > 1);
    for (const metric of ADDITIVE)
      close(
        total[metric],
        rows.reduce((sum: number, r: { metrics: Record<string, number> }) => sum + r.metrics[metric], 0),
        metric,
      );
  });
}

demo(
  'a sorted answer is the unsorted one in a stable sort by the metric: nulls last either way, ties by name',
  async ({ t, d }) => {
    type Row = { dimensions: Record<string, string>; metrics: Record<string, number | null> };
    const rows = async (report: string, query: string) => {
      const res = await t.fetch(`/v1/reports/${d.reports[report]}/data?${RANGE}&${query}`, bearer(d.token));
      assert.is(res.status, 200, query);
      return ((await res.json()) as { rows: Row[] }).rows;
    };
    let compared = 0;
    for (const [report, grouping] of [
      ['Cross-channel performance', 'campaign'],
      ['Video performance', 'video'],
      ['Cross-channel performance', 'creative'],
    ]) {
      const unsorted = await rows(report, `groupBy=${grouping}`);
      assert.ok(unsorted.length > 3, `${grouping} has rows to sort`);
      for (const metric of Object.keys(unsorted[0].metrics)) {
        for (const desc of [false, true]) {
          const expected = [...unsorted].sort((a, b) => {
            const [x, y] = [a.metrics[metric], b.metrics[metric]];
            if (x === y) return 0;
            if (x === null) return 1;
            if (y === null) return -1;
            return (x - y) * (desc ? -1 : 1);
          });
          assert.equal(
            await rows(report, `groupBy=${grouping}&sort=${metric}&sortDesc=${desc}`),
            expected,
            `${grouping} by ${metric}${desc ? ' desc' : ''}`,
          );
          compared++;
        }
      }
    }
    // Custom metrics (engagement_rate, cost_per_view, whose views can be 0: null) included.
    assert.ok(compared >= 30, `${compared} orders compared`);
  },
);

/** The demo's cross-channel report (its id and currency) and its ad accounts. */
async function crossChannel(t: TestApp, d: DemoIds) {
  const [report] = await t.db
    .sql`select id, currency from reports where id = ${d.reports['Cross-channel performance']}`;
  const accounts = (await t.db.sql`select ad_account_id from report_ad_accounts where report_id = ${report.id}`).map(
    (r) => r.ad_account_id as string,
  );
  return { report, accounts };
}

demo('creative rows are the same whether facts are summed before the join (long ranges) or after', async ({ t, d }) => {
  const { report, accounts } = await crossChannel(t, d);
  const cases: [string, string, string | null, boolean][] = [
    ['2025-09-01', '2026-02-28', null, false],
    ['2025-09-01', '2026-02-28', null, true],
    ['2026-01-01', '2026-01-03', null, false],
    ['2026-01-01', '2026-01-04', null, false],
    ['2026-01-02', '2026-01-08', null, true],
    ['2025-12-15', '2026-02-10', 'a', false],
  ];
  for (const [from, to, name, video] of cases) {
    const params = reportParams(accounts, from, to, report.currency, { nameFilter: name, video });
    type Row = Record<string, unknown>;
    const after = await queryAs<Row>(t.db.sql, 'report-data-creative', params);
    const before = await queryAs<Row>(t.db.sql, 'report-data-creative-summed', params);
    const what = `${from}..${to} ${name} ${video}`;
    assert.ok(after.length > 0, `${what} has rows`);
    // The same rows in the same order; the sums may differ in their last bits, added up in another order.
    assert.equal(
      before.map((r) => [r.creativeId, r.creativeName, r.campaignId]),
      after.map((r) => [r.creativeId, r.creativeName, r.campaignId]),
      what,
    );
    after.forEach((row, i) => {
      for (const [key, value] of Object.entries(row))
        if (typeof value === 'number') close(before[i][key] as number, value, `${what} ${key}`);
    });
  }
  assert.is(groupingFile('creative', { from: '2026-01-01', to: '2026-01-03' }), 'report-data-creative');
  assert.is(
    groupingFile('creative', { from: '2026-01-01', to: '2026-01-03' }, true),
    'report-data-creative-one-currency',
  );
  assert.is(groupingFile('video', { from: '2026-01-01', to: '2026-01-04' }, true), 'report-data-creative-summed');
  assert.is(groupingFile('video', { from: '2026-01-01', to: '2026-01-04' }), 'report-data-creative-summed');
  assert.is(groupingFile('campaign', { from: '2025-01-01', to: '2026-01-28' }), 'report-data-campaign');
});

demo(
  "the one-currency creative query answers as report-data-creative for the accounts in the report's currency",
  async ({ t, d }) => {
    const [report] = await t.db
      .sql`select id, currency from reports where id = ${d.reports['Cross-channel performance']}`;
    const accounts = await t.db
      .sql`select a.id, a.currency from report_ad_accounts ra join ad_accounts a on a.id = ra.ad_account_id where ra.report_id = ${report.id}`;
    const all = accounts.map((a) => a.id as string);
    const same = accounts.filter((a) => a.currency === report.currency).map((a) => a.id as string);
    assert.ok(same.length > 0 && same.length < all.length, 'the report mixes currencies');
    for (const [from, to, name, video] of [
      ['2026-01-01', '2026-01-20', null, false],
      ['2026-01-01', '2026-01-20', null, true],
      ['2025-12-20', '2026-01-05', 'a', false],
    ] as const) {
      const expected = await queryAs<Record<string, unknown>>(
        t.db.sql,
        'report-data-creative',
        reportParams(same, from, to, report.currency, { nameFilter: name, video }),
      );
      assert.ok(expected.length > 0, `${from}..${to} has rows`);
      // Given every account, it still reads only those in the report's currency: never another currency's money
      // unconverted.
      for (const given of [same, all]) {
        const rows = await query(
          t.db.sql,
          'report-data-creative-one-currency',
          reportParams(given, from, to, report.currency, { nameFilter: name, video }),
        );
        assert.equal(
          rows.map((r) => [r.creativeId, r.creativeName, r.campaignId]),
          expected.map((r) => [r.creativeId, r.creativeName, r.campaignId]),
        );
        rows.forEach((row, i) => {
          for (const [key, value] of Object.entries(row))
            if (typeof value === 'number') close(expected[i][key] as number, value, `${from}..${to} ${key}`);
        });
      }
    }
  },
);

/** The top node of `explain (format json)`'s row, whether the driver gave the plan parsed or as text. */
const planOf = (row: Record<string, any>) =>
  (typeof row['QUERY PLAN'] === 'string' ? JSON.parse(row['QUERY PLAN']) : row['QUERY PLAN'])[0].Plan;

demo(
  "on PostgreSQL a one-currency CSV export's query can run in parallel, in a transaction without Memoize",
  async ({ t, d }) => {
    if (
      skipped(
        !onPostgres,
        'reportData',
        'a one-currency CSV export in parallel',
        'needs PostgreSQL: PGlite runs one process, no parallel workers to plan for',
      )
    )
      return;
    const [report] = await t.db
      .sql`select id, currency from reports where id = ${d.reports['Cross-channel performance']}`;
    const accounts = (
      await t.db.sql`select a.id from report_ad_accounts ra join ad_accounts a on a.id = ra.ad_account_id
                                   where ra.report_id = ${report.id} and a.currency = ${report.currency}`
    ).map((r) => r.id as string);
    const file = groupingFile('creative', { from: '2026-01-01', to: '2026-01-03' }, true);
    const text = inlinedQueryText(file, reportParams(accounts, '2026-01-01', '2026-01-03', report.currency));
    // The demo's few rows never pay for workers at the default costs; at no cost, a plan that can go parallel does.
    const { nodes, memoize } = await t.db.sql.begin(async (tx) => {
      await tx.unsafe(
        `${EXPORT_SETTINGS}; set local parallel_setup_cost = 0; set local parallel_tuple_cost = 0; set local min_parallel_table_scan_size = 0; set local min_parallel_index_scan_size = 0`,
      );
      const [row] = await tx.unsafe(`explain (format json) ${text}`);
      const plan = planOf(row);
      const types = (node: { 'Node Type': string; Plans?: unknown[] }): string[] => [
        node['Node Type'],
        ...((node.Plans ?? []) as never[]).flatMap(types),
      ];
      // The demo's rows are too few for PostgreSQL to choose Memoize either way, so the setting itself is what is
      // checked.
      const [{ setting }] = await tx`select current_setting('enable_memoize') as setting`;
      return { nodes: types(plan), memoize: setting };
    });
    assert.ok(
      nodes.some((node) => node.startsWith('Gather')),
      nodes.join(', '),
    );
    assert.is(memoize, 'off');
  },
);

demo('the creative grouping sums and orders its rows with one sort', async ({ t, d }) => {
  const { report, accounts } = await crossChannel(t, d);
  type Plan = { 'Node Type': string; 'Sort Key'?: string[]; Plans?: Plan[] };
  const sorts = (plan: Plan): string[][] => [
    ...(plan['Node Type'] === 'Sort' ? [plan['Sort Key']!] : []),
    ...(plan.Plans ?? []).flatMap(sorts),
  ];
  // A million creatives on one day spill past any hash table, so PostgreSQL sums them sorted, as here with hashing off.
  // It joins them to the report's creatives by hash (migration 035); on a few rows it would merge them, sorted by id.
  const keys = await t.db.sql.begin(async (tx) => {
    await tx`set local enable_hashagg = off`;
    await tx`set local enable_mergejoin = off`;
    const [row] = await statement(
      tx,
      `explain (format json) ${queryText('report-data-creative')}`,
      reportParams(accounts, '2026-01-01', '2026-01-03', report.currency),
    );
    const plan = planOf(row) as Plan;
    // The creatives' columns, whatever PostgreSQL calls the function's rows (cr, or c inside it).
    return sorts(plan).filter((key) => key.some((k) => /^cr?\.(name|id)$|creative_id$/.test(k)));
  });
  // Grouped by id and ordered by name, PostgreSQL sorted by id to sum, then again by name.
  assert.is(keys.length, 1, JSON.stringify(keys));
  assert.match(keys[0][0], /^cr?\.name$/);
});

demo('campaign and ad-account answers sum by id before a name filter meets their names', async ({ t, d }) => {
  const { report, accounts } = await crossChannel(t, d);
  type Plan = { 'Node Type': string; 'Group Key'?: string[]; Plans?: Plan[] };
  const groupKeys = (plan: Plan): string[][] => [
    ...(plan['Node Type'] === 'Aggregate' && plan['Group Key'] ? [plan['Group Key']] : []),
    ...(plan.Plans ?? []).flatMap(groupKeys),
  ];
  for (const [file, name, id, joined] of [
    ['report-data-campaign', 'campaignName', /\.campaign_id$/, 'c.id'],
    ['report-data-ad-account', 'adAccountName', /\.ad_account_id$/, 'a.id'],
  ] as const) {
    // As query.ts composes a filter over the grouping's query: PostgreSQL moves it down to the names' table.
    const text = `select * from (${queryText(file)}) s where strpos(lower(s."${name}"), lower(:filter1::text)) > 0`;
    const params = reportParams(accounts, '2025-01-01', '2026-11-27', report.currency, { filter1: 'a' });
    const [row] = await statement(t.db.sql, `explain (format json) ${text}`, params);
    const plan = planOf(row) as Plan;
    // Grouped after the join, by the names' own id, the filter's guess of the rows it leaves picked the way to sum.
    const keys = groupKeys(plan).map((key) => key.join());
    assert.ok(keys.some((key) => id.test(key)) && !keys.includes(joined), `${file}: ${JSON.stringify(keys)}`);
  }
});

demo(
  "a campaign answer reads its report's accounts' campaigns as one set, not every organization's",
  async ({ t, d }) => {
    const { report, accounts } = await crossChannel(t, d);
    type Plan = { 'Node Type': string; 'Relation Name'?: string; Plans?: Plan[] } & Record<string, unknown>;
    const reads = (plan: Plan, probed: boolean): { scan: Plan; probed: boolean }[] => [
      ...(plan['Relation Name'] === 'campaigns' ? [{ scan: plan, probed }] : []),
      ...(plan.Plans ?? []).flatMap((p, i) => reads(p, probed || (plan['Node Type'] === 'Nested Loop' && i === 1))),
    ];
    const params = reportParams(accounts, '2025-01-01', '2026-11-27', report.currency);
    const [row] = await statement(t.db.sql, `explain (format json) ${queryText('report-data-campaign')}`, params);
    const found = reads(planOf(row) as Plan, false);
    const conditions = found.map(({ scan }) => ['Index Cond', 'Recheck Cond', 'Filter'].map((k) => scan[k]).join(' '));
    assert.is(found.length, 1, JSON.stringify(conditions));
    // The accounts are a condition of the read, so a name filter moved down to it is checked on theirs alone; and the
    // read is a set of its own, never an index probe for each summed campaign inside a loop.
    assert.match(conditions[0], /ad_account_id = ANY/);
    assert.not.ok(found[0].probed, 'campaigns probed inside a nested loop');
  },
);

demo('ratios equal the ratio of the sums, never an average of ratios', async ({ t, d }) => {
  const metrics = 'clicks,impressions,spend,conversions,conversion_value,video_views,ctr,cpc,cpa,roas,engagement_rate';
  const res = await t.fetch(
    `/v1/reports/${d.reports['Cross-channel performance']}/data?${RANGE}&groupBy=campaign&metrics=${metrics}`,
    bearer(d.token),
  );
  assert.is(res.status, 200);
  const body = await res.json();
  assert.ok(body.rows.length >= 5, `${body.rows.length} campaign rows`);
  for (const { metrics: m } of body.rows) {
    close(m.ctr, (m.clicks / m.impressions) * 100, 'ctr');
    close(m.cpc, m.spend / m.clicks, 'cpc');
    close(m.cpa, m.spend / m.conversions, 'cpa');
    close(m.roas, m.conversion_value / m.spend, 'roas');
    // The demo's custom metric: (clicks + video_views) / impressions * 100, from the row's own sums.
    close(m.engagement_rate, ((m.clicks + m.video_views) / m.impressions) * 100, 'engagement_rate');
  }
});

demo('a segment report groups by segment, and segmentIds narrows it', async ({ t, d }) => {
  const url = `/v1/reports/${d.reports['Segment overview']}/data?${RANGE}&groupBy=segment`;
  const all = await (await t.fetch(url, bearer(d.token))).json();
  assert.equal(
    all.rows.map((r: { dimensions: { segmentName: string } }) => r.dimensions.segmentName),
    ['Brand', 'Performance', 'Video'],
  );
  const one = all.rows[1].dimensions.segmentId;
  const narrowed = await (await t.fetch(`${url}&segmentIds=${one}`, bearer(d.token))).json();
  assert.equal(narrowed.rows, [all.rows[1]]);
});

demo('a months report needs no dates and spans everything it holds', async ({ t, d }) => {
  const res = await t.fetch(`/v1/reports/${d.reports['Monthly spend']}/data?groupBy=month`, bearer(d.token));
  const body = await res.json();
  assert.is(res.status, 200);
  assert.ok(body.rows.length >= 14, `${body.rows.length} months`);
  assert.is(body.dateFrom.slice(0, 7), body.rows[0].dimensions.month);
  assert.is(body.dateTo.slice(0, 7), body.rows.at(-1).dimensions.month);
});

demo('requests running at once each get their own answer, exports streaming among them', async ({ t, d }) => {
  // The embedded database serves every connection from one session: statements and portals of one request must
  // never be taken for another's, however their messages interleave.
  const report = d.reports['Cross-channel performance'];
  const urls = ['campaign', 'ad-account', 'month', 'creative', 'total'].map(
    (g) => `/v1/reports/${report}/data?${RANGE}&groupBy=${g}`,
  );
  urls.push(`/v1/reports/${report}/data?dateFrom=2026-01-01&dateTo=2026-01-03&groupBy=creative`);
  const exports = ['csv', 'xlsx'].map(
    (ext) => `/v1/reports/${report}/export.${ext}?dateFrom=2026-01-01&dateTo=2026-01-20&groupBy=creative`,
  );
  const body = async (url: string) => {
    const res = await t.fetch(url, bearer(d.token));
    const bytes = Buffer.from(await res.arrayBuffer());
    return `${res.status} ${url.includes('.xlsx') ? bytes.length : bytes.toString('utf8')}`;
  };
  const alone = new Map<string, string>();
  for (const url of [...urls, ...exports]) alone.set(url, await body(url));
  for (const url of [...urls, ...exports])
    assert.ok(alone.get(url)!.startsWith('200 '), `${url}: ${alone.get(url)!.slice(0, 200)}`);
  const all = [...exports, ...urls, ...urls, ...urls, ...exports];
  const together = await Promise.all(all.map(body));
  for (const [i, url] of all.entries())
    assert.is(together[i], alone.get(url), `${url} answered alone and among others`);
});

demo.run();

// ---

const deadline = suite('request deadline');

deadline('a query past REQUEST_DEADLINE_MS answers 503 request-timeout and is cancelled on the server', async () => {
  if (
    skipped(
      !onPostgres,
      'request deadline',
      'a query past REQUEST_DEADLINE_MS',
      'needs PostgreSQL: the embedded database runs one query at a time and cannot cancel one; PostgreSQL can',
    )
  )
    return;
  const t = await testApp({ env: { REQUEST_DEADLINE_MS: '300' } });
  const blocker = await t.db.sql.reserve();
  try {
    const { org, token } = await tenant(t);
    const { report } = await fixtureReport(t, org);
    // Hold a lock the fact query needs, so it waits well past the deadline.
    await blocker`begin`;
    await blocker.unsafe(LOCK_FACTS);
    const res = await t.fetch(`/v1/reports/${report}/data?dateFrom=2026-01-01&dateTo=2026-01-31`, bearer(token));
    assert.is(res.status, 503);
    assert.match((await res.json()).type, /\/request-timeout$/);
    await new Promise((r) => setTimeout(r, 200));
    const waiting = await t.db
      .sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and query like '%report\_%facts(%' and state = 'active'`;
    assert.is(waiting[0].n, 0, 'the cancelled query is gone');
  } finally {
    await blocker`rollback`;
    blocker.release();
    await t.close();
  }
});

deadline.run();

// ---

const rollup = suite<{ t: TestApp }>('the monthly rollup');
rollup.before(async (ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400' } });
});
rollup.after(async (ctx) => ctx.t.close());

rollup(
  'answers equal a plain GROUP BY over the raw facts, for whole months, edges and mixed currencies, after any write',
  async ({ t }) => {
    const d = await (await import('./support/demo.ts')).seedDemo(t);
    const sql = t.db.sql;
    // Writes of every kind after the seed: an update, a delete, an upsert.
    await sql`update facts set impressions = impressions + 7 where day = '2025-12-15'`;
    await sql`delete from facts where day = '2025-11-03'`;
    // An upsert: rows of one day rewritten through ON CONFLICT, as an import of corrected numbers does.
    await sql`insert into facts select organization_id, ad_account_id, campaign_id, creative_id, day, impressions * 2, clicks, spend + 1,
              conversions, conversion_value, video_views, video_completions from facts where day = '2026-01-20'
            on conflict (ad_account_id, day, creative_id) do update set impressions = excluded.impressions, spend = excluded.spend`;
    const ranges = [
      ['2025-10-01', '2026-01-31'],
      ['2025-10-17', '2026-02-09'],
      ['2025-12-05', '2025-12-20'],
      ['2025-03-01', '2026-03-01'],
    ];
    for (const [from, to] of ranges) {
      for (const report of ['Cross-channel performance', 'Europe in EUR']) {
        const body = await (
          await t.fetch(
            `/v1/reports/${d.reports[report]}/data?dateFrom=${from}&dateTo=${to}&groupBy=campaign&metrics=impressions,clicks,spend`,
            bearer(d.token),
          )
        ).json();
        const [{ currency }] = await sql`select currency from reports where id = ${d.reports[report]}`;
        const naive = await sql`
        select f.campaign_id::text as id, sum(f.impressions)::float8 as impressions, sum(f.clicks)::float8 as clicks,
               sum(f.spend * usd_rate_on(a.currency, f.day) / usd_rate_on(${currency}, f.day)) as spend
        from facts f join ad_accounts a on a.id = f.ad_account_id
        join report_ad_accounts ra on ra.ad_account_id = f.ad_account_id and ra.report_id = ${d.reports[report]}
        where f.day between ${from} and ${to}
        group by f.campaign_id`;
        const byId = new Map(naive.map((r) => [r.id, r]));
        assert.is(body.rows.length, naive.length, `${report} ${from}..${to}`);
        for (const row of body.rows) {
          const expected = byId.get(row.dimensions.campaignId)!;
          assert.is(row.metrics.impressions, expected.impressions, `${report} ${from}..${to} impressions`);
          assert.is(row.metrics.clicks, expected.clicks);
          assert.ok(Math.abs(row.metrics.spend - expected.spend) < 1e-4, `${row.metrics.spend} vs ${expected.spend}`);
        }
      }
    }
  },
);

rollup.run();

// ---

const planning = suite('query planning');

planning('report data queries are planned for each call; the small ones stay prepared', () => {
  let last: boolean | undefined;
  const recorder = {
    unsafe: (_text: string, _params: unknown, options: { prepare: boolean }) => ((last = options.prepare), []),
  };
  const prepared = (name: QueryName) => {
    queryAs(recorder as never, name, new Proxy({}, { get: () => null }));
    return last;
  };
  // A generic plan cannot see which months a range covers: it cost PostgreSQL half as much CPU again a call.
  assert.is(prepared('report-data-campaign'), false);
  assert.is(prepared('report-data-creative-summed'), false);
  assert.is(prepared('charge-quota-batch'), true);
  assert.is(prepared('list-reports'), true);
});

planning('the edge days of a range are read by the bounds the request names, planned as constants', async () => {
  // Migration 025: bounds from a CTE were unknown to the planner, which then scanned every fact for the edge days.
  const t = await testApp();
  try {
    const plan = await t.db.sql.unsafe(
      `explain (format json) select * from report_facts($1, null, '2026-05-11', '2026-11-26', 'USD')`,
      [['00000000-0000-4000-8000-000000000000']] as never[],
    );
    const text = JSON.stringify(plan);
    assert.ok(text.includes("'2026-06-01'::date"), 'the first whole month, folded');
    assert.ok(text.includes("'2026-11-01'::date"), 'the month after the last whole one, folded');
    assert.not.ok(text.includes('bounds'), text.slice(0, 400));
  } finally {
    await t.close();
  }
});

planning.run();
