// docs/decisions.md §6: interval=day|week|month on every grouping but month, and changedSince.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { testApp, type TestApp } from './support/app.ts';
import { onPostgres } from './support/database.ts';
import { seedDemo, type DemoIds } from './support/demo.ts';
import { bearer, cli, createOrg, tenant } from './support/fixtures.ts';
import { skipped } from './support/skip.ts';
import { FIXTURE_CSV, fixtureReport, HEADER, importCsv } from './support/importFixture.ts';

type Row = { dimensions: Record<string, string>; metrics: Record<string, number | null> };
type Fixture = { t: TestApp; org: string; token: string; report: string; google: string; meta: string };

const it = suite<Fixture>('rows a period at a time');
it.before(async (ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400' } });
  const { org, token } = await tenant(ctx.t);
  Object.assign(
    ctx,
    { org, token },
    await fixtureReport(ctx.t, org, { metrics: ['impressions', 'clicks', 'spend', 'conversions', 'cpa', 'ctr'] }),
  );
});
it.after(async (ctx) => ctx.t.close());

const data = async (ctx: Fixture, query: string) => {
  const res = await ctx.t.fetch(`/v1/reports/${ctx.report}/data?${query}`, bearer(ctx.token));
  return { res, body: await res.json() };
};
const JAN = 'dateFrom=2026-01-01&dateTo=2026-01-31';
const round = (n: number | null) => (n === null ? null : Math.round(n * 1e6) / 1e6);

it('interval=day adds a day key first, and orders rows by day, then as the grouping does', async (ctx) => {
  const { res, body } = await data(ctx, `${JAN}&groupBy=campaign&interval=day&metrics=impressions,spend`);
  assert.is(res.status, 200);
  const rows = body.rows as Row[];
  assert.equal(
    rows.map((r) => [r.dimensions.day, r.dimensions.campaignName]),
    [
      ['2026-01-05', 'Alpha, "the" first'],
      ['2026-01-05', 'Beta search'],
      ['2026-01-06', 'Alpha, "the" first'],
      ['2026-01-06', 'Gamma search'],
      ['2026-01-07', 'Alpha, "the" first'],
    ],
  );
  assert.equal(Object.keys(rows[0].dimensions), ['day', 'campaignId', 'campaignName', 'adAccountId', 'externalId']);
  // 100 EUR a day at 1.1, 1.1 (the 5th's rate carried) and 1.2: each day at its own rate.
  assert.equal(
    rows.filter((r) => r.dimensions.campaignName.startsWith('Alpha')).map((r) => round(r.metrics.spend)),
    [110, 110, 120],
  );
});

it('a day grouping summed per campaign equals groupBy=campaign over the same range', async (ctx) => {
  for (const grouping of ['campaign', 'ad-account', 'creative', 'video', 'total']) {
    const days = (await data(ctx, `${JAN}&groupBy=${grouping}&interval=day`)).body.rows as Row[];
    const whole = (await data(ctx, `${JAN}&groupBy=${grouping}`)).body.rows as Row[];
    const key = (r: Row) => JSON.stringify(Object.entries(r.dimensions).filter(([k]) => k !== 'day'));
    const sums = new Map<string, Record<string, number>>();
    for (const row of days) {
      const sum = sums.get(key(row)) ?? {};
      for (const name of ['impressions', 'clicks', 'spend', 'conversions'])
        sum[name] = (sum[name] ?? 0) + (row.metrics[name] as number);
      sums.set(key(row), sum);
    }
    for (const row of whole) {
      if (grouping === 'total' && row.metrics.impressions === 0) continue;
      const sum = sums.get(key(row));
      assert.ok(sum, `${grouping}: ${key(row)} has day rows`);
      for (const name of ['impressions', 'clicks', 'spend', 'conversions'])
        assert.is(round(sum[name]), round(row.metrics[name]), `${grouping} ${name}`);
    }
    assert.is(sums.size, whole.length, grouping);
  }
});

it("ratios are worked out from each period's own sums", async (ctx) => {
  const { body } = await data(ctx, `${JAN}&groupBy=total&interval=day&metrics=clicks,impressions,ctr,cpa`);
  assert.is(body.rows.length, 3);
  for (const row of body.rows as Row[]) {
    assert.is(row.metrics.ctr, round(((row.metrics.clicks as number) / (row.metrics.impressions as number)) * 100));
  }
  // February's only day has conversions; a range of days without any divides by zero.
  const none = await data(
    ctx,
    'dateFrom=2026-01-06&dateTo=2026-01-06&groupBy=campaign&interval=day&metrics=cpa&nameFilter=gamma',
  );
  assert.equal(
    none.body.rows.map((r: Row) => r.metrics.cpa),
    [null],
  );
});

it("interval=week: the ISO week's Monday, with only the days of the range", async (ctx) => {
  // 2026-01-05 is a Monday. From the 6th (a Tuesday), the week of the 5th holds only the 6th and 7th.
  const { body } = await data(
    ctx,
    'dateFrom=2026-01-06&dateTo=2026-02-28&groupBy=total&interval=week&metrics=impressions',
  );
  assert.equal(body.rows, [
    { dimensions: { week: '2026-01-05' }, metrics: { impressions: 2500 } },
    { dimensions: { week: '2026-02-09' }, metrics: { impressions: 1000 } },
  ]);
  // Ending on the Monday: the same week, with only its first day.
  const short = await data(
    ctx,
    'dateFrom=2026-01-01&dateTo=2026-01-05&groupBy=total&interval=week&metrics=impressions',
  );
  assert.equal(short.body.rows, [{ dimensions: { week: '2026-01-05' }, metrics: { impressions: 4000 } }]);
});

it('interval=month on total equals groupBy=month; periods without facts give no row', async (ctx) => {
  const range = 'dateFrom=2025-12-01&dateTo=2026-03-31&metrics=impressions,spend,ctr';
  const months = await data(ctx, `${range}&groupBy=month`);
  const total = await data(ctx, `${range}&groupBy=total&interval=month`);
  assert.equal(total.body.rows, months.body.rows);
  assert.equal(
    total.body.rows.map((r: Row) => r.dimensions.month),
    ['2026-01', '2026-02'],
  );
});

it('sort applies within each period', async (ctx) => {
  const { body } = await data(
    ctx,
    `${JAN}&groupBy=campaign&interval=day&metrics=impressions&sort=impressions&sortDesc=true`,
  );
  assert.equal(
    (body.rows as Row[]).map((r) => [r.dimensions.day, r.metrics.impressions]),
    [
      ['2026-01-05', 3000],
      ['2026-01-05', 1000],
      ['2026-01-06', 1000],
      ['2026-01-06', 500],
      ['2026-01-07', 1000],
    ],
  );
});

it('the ETag covers interval and changedSince', async (ctx) => {
  const etags = new Set<string>();
  for (const extra of [
    '',
    '&interval=day',
    '&interval=week',
    '&interval=day&changedSince=2026-01-01T00:00:00Z',
    '&interval=day&changedSince=2026-01-02T00:00:00Z',
  ]) {
    etags.add((await data(ctx, `${JAN}&groupBy=campaign${extra}`)).res.headers.get('etag')!);
  }
  assert.is(etags.size, 5);
});

it('an interval costs what the same answer without it costs: one unit per ad account', async (ctx) => {
  const remaining = (res: Response) => Number(/r=(\d+)/.exec(res.headers.get('ratelimit') ?? '')![1]);
  const a = (await data(ctx, `${JAN}&groupBy=campaign`)).res;
  const b = (await data(ctx, `${JAN}&groupBy=campaign&interval=day`)).res;
  const c = (await data(ctx, `${JAN}&groupBy=campaign&interval=day&changedSince=2026-01-01T00:00:00Z`)).res;
  assert.equal([remaining(a) - remaining(b), remaining(b) - remaining(c)], [2, 2]);
});

it('bad intervals and changedSince are 400 naming the parameter', async (ctx) => {
  const cases: [string, string][] = [
    ['groupBy=month&interval=day', 'interval'],
    ['interval=hour', 'interval'],
    ['changedSince=2026-01-01T00:00:00Z', 'changedSince'],
    ['interval=day&changedSince=yesterday', 'changedSince'],
    ['interval=day&changedSince=2026-01-01', 'changedSince'],
    ['interval=day&changedSince=2026-02-30T00:00:00Z', 'changedSince'],
    ['interval=day&changedSince=2026-01-01T24:00:00Z', 'changedSince'],
    ['interval=day&changedSince=2999-01-01T00:00:00Z', 'changedSince'],
    ['interval=day&interval=week', 'interval'],
  ];
  for (const [query, name] of cases) {
    const { res, body } = await data(ctx, `${JAN}&${query}`);
    assert.is(res.status, 400, query);
    assert.is(body.type.endsWith('invalid-parameter'), true, query);
    assert.ok(body.detail.includes(name), `${query}: ${body.detail}`);
  }
});

it('every interval answer names the changedSince to resume from', async (ctx) => {
  const before = Date.now();
  const { res } = await data(ctx, `${JAN}&groupBy=campaign&interval=day`);
  const resume = res.headers.get('next-changed-since')!;
  assert.match(resume, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  assert.ok(Math.abs(Date.parse(resume) - before) < 60_000, resume);
  assert.is((await data(ctx, `${JAN}&groupBy=campaign`)).res.headers.get('next-changed-since'), null);
});

it('changedSince: exactly the periods of a restatement come back, whole', async (ctx) => {
  const first = await data(ctx, `${JAN}&groupBy=campaign&interval=day`);
  const since = first.res.headers.get('next-changed-since')!;
  const nothing = await data(ctx, `${JAN}&groupBy=campaign&interval=day&changedSince=${since}`);
  assert.equal(nothing.body.rows, []);
  // The 6th restated for Alpha; the 5th loaded again with the same numbers.
  const out = await importCsv(
    ctx.t,
    ctx.org,
    [
      HEADER,
      '2026-01-06,meta-ads,M1,Meta EU,EUR,C1,"Alpha, ""the"" first",K1,Alpha video,video,1500,60,100,5,200,400,100',
      '2026-01-05,meta-ads,M1,Meta EU,EUR,C1,"Alpha, ""the"" first",K1,Alpha video,video,1000,50,100,5,200,400,100',
    ].join('\n'),
  );
  assert.is(out.code, 0, out.stderr);
  const changed = await data(ctx, `${JAN}&groupBy=campaign&interval=day&changedSince=${since}`);
  // The whole day, Gamma's row too, though only Alpha's numbers changed.
  assert.equal(
    (changed.body.rows as Row[]).map((r) => [r.dimensions.day, r.dimensions.campaignName, r.metrics.impressions]),
    [
      ['2026-01-06', 'Alpha, "the" first', 1500],
      ['2026-01-06', 'Gamma search', 500],
    ],
  );
  const weeks = await data(ctx, `${JAN}&groupBy=total&interval=week&changedSince=${since}&metrics=impressions`);
  assert.equal(weeks.body.rows, [{ dimensions: { week: '2026-01-05' }, metrics: { impressions: 7000 } }]);
  const later = changed.res.headers.get('next-changed-since')!;
  assert.ok(later > since);
  assert.equal((await data(ctx, `${JAN}&groupBy=campaign&interval=day&changedSince=${later}`)).body.rows, []);
});

it('a plain SQL update comes back for the days whose numbers it changed, not the days it only touched', async (ctx) => {
  const since = (await data(ctx, `${JAN}&groupBy=total&interval=day`)).res.headers.get('next-changed-since')!;
  // One statement: the 5th's rows set to what they hold, the 7th's spend moved, a row moved from the 6th to the 8th.
  await ctx.t.db.sql`update facts set
    spend = case when day = '2026-01-07' then spend + 1 else spend end,
    day = case when day = '2026-01-06' and ad_account_id = ${ctx.google} then '2026-01-08'::date else day end
    where day in ('2026-01-05', '2026-01-06', '2026-01-07') and ad_account_id in (${ctx.google}, ${ctx.meta})`;
  const after = await data(ctx, `${JAN}&groupBy=total&interval=day&changedSince=${since}&metrics=impressions`);
  assert.equal(
    after.body.rows.map((r: Row) => r.dimensions.day),
    ['2026-01-06', '2026-01-07', '2026-01-08'],
  );
  await ctx.t.db.sql`update facts set
    spend = case when day = '2026-01-07' then spend - 1 else spend end,
    day = case when day = '2026-01-08' then '2026-01-06'::date else day end
    where day in ('2026-01-07', '2026-01-08') and ad_account_id in (${ctx.google}, ${ctx.meta})`;
});

it('a write that commits while a pull is read comes back in the next pull', async (ctx) => {
  const name = 'a write that commits while a pull is read comes back in the next pull';
  if (
    skipped(
      !onPostgres,
      'rows a period at a time',
      name,
      'needs PostgreSQL: the embedded database runs one transaction at a time',
    )
  )
    return;
  const since = (await data(ctx, `${JAN}&groupBy=total&interval=day`)).res.headers.get('next-changed-since')!;
  let resume = '';
  await ctx.t.db.sql.begin(async (tx) => {
    // Stamped now, committed only after the pull below has been answered and has named its resume point.
    await tx`update facts set clicks = clicks + 1 where ad_account_id = ${ctx.google} and day = '2026-01-06'`;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const during = await data(ctx, `${JAN}&groupBy=total&interval=day&changedSince=${since}`);
    assert.equal(during.body.rows, []);
    resume = during.res.headers.get('next-changed-since')!;
  });
  const after = await data(ctx, `${JAN}&groupBy=total&interval=day&changedSince=${resume}&metrics=impressions`);
  assert.equal(
    after.body.rows.map((r: Row) => r.dimensions.day),
    ['2026-01-06'],
  );
});

it("another organization's loads and deletion change nothing here", async (ctx) => {
  const before = await data(ctx, `${JAN}&groupBy=campaign&interval=day`);
  const since = before.res.headers.get('next-changed-since')!;
  const other = await createOrg(ctx.t.db.sql);
  const out = await importCsv(ctx.t, other, FIXTURE_CSV);
  assert.is(out.code, 0, out.stderr);
  await cli(ctx.t.db.sql, ['org', 'delete', '--org', other, '--yes']);
  const after = await data(ctx, `${JAN}&groupBy=campaign&interval=day&changedSince=${since}`);
  assert.equal(after.body.rows, []);
  assert.is(
    after.res.headers.get('etag'),
    (await data(ctx, `${JAN}&groupBy=campaign&interval=day&changedSince=${since}`)).res.headers.get('etag'),
  );
});

it('a fact written any way moves the ETag, so a 304 never hides new numbers', async (ctx) => {
  const query = `${JAN}&groupBy=campaign&interval=day`;
  const etag = (await data(ctx, query)).res.headers.get('etag')!;
  const again = await ctx.t.fetch(`/v1/reports/${ctx.report}/data?${query}`, {
    headers: { ...bearer(ctx.token).headers, 'if-none-match': etag },
  });
  assert.is(again.status, 304);
  assert.ok(again.headers.get('next-changed-since'));
  // Not through the import (which also moves the accounts' last fetch): straight into the table.
  await ctx.t.db.sql`update facts set clicks = clicks + 1 where ad_account_id = ${ctx.google} and day = '2026-01-05'`;
  const after = await ctx.t.fetch(`/v1/reports/${ctx.report}/data?${query}`, {
    headers: { ...bearer(ctx.token).headers, 'if-none-match': etag },
  });
  assert.is(after.status, 200);
});

it("a rate that changes a day's conversion makes that day come back, and moves the ETag", async (ctx) => {
  const query = `${JAN}&groupBy=campaign&interval=day&metrics=spend`;
  const first = await data(ctx, query);
  const since = first.res.headers.get('next-changed-since')!;
  const etag = first.res.headers.get('etag')!;
  // 6 January had no EUR rate (the 5th's, 1.1, was carried); now it has its own, as `readout fx import` writes it.
  await ctx.t.db
    .sql`insert into fx_rates (currency, day, usd_per_unit, source) values ('EUR', '2026-01-06', 1.15, 'import')
    on conflict (currency, day) do update set usd_per_unit = excluded.usd_per_unit, source = excluded.source`;
  const again = await ctx.t.fetch(`/v1/reports/${ctx.report}/data?${query}`, {
    headers: { ...bearer(ctx.token).headers, 'if-none-match': etag },
  });
  assert.is(again.status, 200);
  const changed = await data(ctx, `${query}&changedSince=${since}`);
  assert.equal(
    (changed.body.rows as Row[]).map((r) => [r.dimensions.day, r.dimensions.campaignName, round(r.metrics.spend)]),
    [
      ['2026-01-06', 'Alpha, "the" first', 115],
      ['2026-01-06', 'Gamma search', 0],
    ],
  );
  // The same rate written again changes nothing.
  const resume = changed.res.headers.get('next-changed-since')!;
  await ctx.t.db.sql`update fx_rates set source = 'import' where currency = 'EUR' and day = '2026-01-06'`;
  assert.equal((await data(ctx, `${query}&changedSince=${resume}`)).body.rows, []);
});

it('exports carry the period key first and the resume point', async (ctx) => {
  const res = await ctx.t.fetch(
    `/v1/reports/${ctx.report}/export.csv?${JAN}&groupBy=ad-account&interval=week&metrics=impressions`,
    bearer(ctx.token),
  );
  assert.is(res.status, 200);
  assert.ok(res.headers.get('next-changed-since'));
  const lines = (await res.text()).trim().split('\r\n');
  assert.is(lines[0], 'week,adAccountId,adAccountName,platform,impressions');
  assert.equal(
    lines.slice(1).map((line) => line.split(',')[0]),
    ['2026-01-05', '2026-01-05'],
  );
});

it.run();

const demo = suite<{ t: TestApp; ids: DemoIds }>('rows a period at a time: the demo');
demo.before(async (ctx) => {
  ctx.t = await testApp({ demo: true });
  ctx.ids = await seedDemo(ctx.t);
});
demo.after(async (ctx) => ctx.t.close());

demo(
  'segment and campaign weeks of a segment report sum to the whole range, segment by segment',
  async ({ t, ids }) => {
    const report = ids.reports['Segment overview'];
    const get = async (q: string) => {
      const res = await t.fetch(
        `/v1/reports/${report}/data?dateFrom=2026-01-01&dateTo=2026-03-31&metrics=impressions,spend,ctr&${q}`,
        bearer(ids.token),
      );
      assert.is(res.status, 200, q);
      return (await res.json()).rows as Row[];
    };
    for (const groupBy of ['segment', 'campaign']) {
      const weeks = await get(`groupBy=${groupBy}&interval=week`);
      const whole = await get(`groupBy=${groupBy}`);
      assert.ok(weeks.length > whole.length);
      assert.ok(
        weeks.every((r) => new Date(`${r.dimensions.week}T00:00:00Z`).getUTCDay() === 1),
        'every week starts on a Monday',
      );
      for (const row of whole) {
        const id = row.dimensions.segmentId ?? row.dimensions.campaignId;
        const mine = weeks.filter((r) => (r.dimensions.segmentId ?? r.dimensions.campaignId) === id);
        assert.is(
          mine.reduce((sum, r) => sum + (r.metrics.impressions as number), 0),
          row.metrics.impressions,
        );
        // Each row's money is rounded to six decimals: summed, the weeks may differ in the last of them.
        assert.ok(
          Math.abs(mine.reduce((sum, r) => sum + (r.metrics.spend as number), 0) - (row.metrics.spend as number)) <
            1e-4 * mine.length,
        );
      }
    }
  },
);

demo.run();
