// docs/decisions.md §5: base metrics an operator declares in readout.yaml. The oracle is the built-in metrics: two
// declared metrics are imported with the very numbers of clicks and spend, so in every grouping, interval, currency,
// filter, sort, summary, comparison and format their answers must be clicks' and spend's (null where spend is), through
// loads, restatements and rate changes. A third is checked against sums of the file itself.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { testApp, type TestApp } from './support/app.ts';
import { runCommand } from '../src/cli/run.ts';
import { bearer, tenant } from './support/fixtures.ts';
import { HEADER, importCsv } from './support/importFixture.ts';
import { csvRecords } from './support/csv.ts';

type Ctx = { t: TestApp; org: string; token: string; report: string; eurReport: string; segmentReport: string };
const it = suite<Ctx>('declared base metrics');

const DECLARED = `
baseMetrics:
  - { name: leads, displayName: Leads, kind: count }
  - { name: spend_again, displayName: Spend again, kind: money, conversionDerived: true }
  - { name: score, kind: count, whole: false, description: A decimal count }
metrics:
  - { name: cost_per_lead, kind: money, formula: spend / leads }
`;

/** A line: day, account, campaign, creative, format, clicks, spend, score; every other number fixed. */
type Line = [string, 'M1' | 'G1', string, string, string, number, number, string];
const account = (id: 'M1' | 'G1') => (id === 'M1' ? 'meta-ads,M1,Meta EU,EUR' : 'google-ads,G1,Google US,USD');

/** The file: the built-in columns, then leads (= clicks), spend_again (= spend), score. */
const csv = (lines: Line[]) =>
  [
    `${HEADER},leads,spend_again,score`,
    ...lines.map(
      ([day, acct, campaign, creative, format, clicks, spend, score]) =>
        `${day},${account(acct)},${campaign},Campaign ${campaign},${creative},Creative ${creative},${format},` +
        `1000,${clicks},${spend},1,10,100,50,${clicks},${spend},${score}`,
    ),
  ].join('\n');

const LINES: Line[] = [
  ['2026-01-05', 'M1', 'C1', 'K1', 'video', 50, 100.5, '1.25'],
  ['2026-01-06', 'M1', 'C1', 'K1', 'video', 40, 80, ''],
  ['2026-01-07', 'M1', 'C1', 'K9', 'image', 30, 12.25, '2'],
  ['2026-01-12', 'M1', 'C4', 'K4', 'text', 7, 3, '0.5'],
  ['2026-01-05', 'G1', 'C2', 'K2', 'text', 30, 60, '3'],
  ['2026-01-06', 'G1', 'C3', 'K3', 'image', 0, 0, '0'],
  ['2026-01-20', 'G1', 'C3', 'K5', 'video', 9, 4.75, '1.5'],
  ['2026-02-10', 'G1', 'C2', 'K2', 'text', 10, 20, '0.25'],
  // Before the first EUR rate: this money cannot be converted to USD, so every USD row that holds it is null.
  ['2026-01-02', 'M1', 'C7', 'K7', 'image', 2, 5, '1'],
];

it.before(async (ctx) => {
  ctx.t = await testApp();
  const { org, token } = await tenant(ctx.t, { plan: 'enterprise' });
  Object.assign(ctx, { org, token });
  const sql = ctx.t.db.sql;
  await sql`update subscriptions set budget_override = 100000000 where organization_id = ${org}`;
  // Declared before the first load: the file's columns are theirs.
  const declared = await apply(ctx, DECLARED);
  assert.is(declared.code, 0, declared.stderr);
  const loaded = await importCsv(ctx.t, org, csv(LINES));
  assert.is(loaded.code, 0, loaded.stderr);
  // No EUR rate on 2026-01-06: that day's EUR money is null, built-in and declared alike (§11).
  await sql`insert into fx_rates (currency, day, usd_per_unit) values ('EUR', '2026-01-05', 1.1), ('EUR', '2026-01-07', 1.2)`;
  const metrics = ['clicks', 'spend', 'leads', 'spend_again', 'score', 'cost_per_lead'];
  const groupings = ['total', 'campaign', 'month', 'ad-account', 'video', 'creative'];
  const accounts = await sql`select id from ad_accounts where organization_id = ${org}`;
  const make = async (currency: string) => {
    const [report] = await sql`insert into reports (organization_id, name, kind, currency, metrics, groupings)
      values (${org}, ${currency}, 'standard', ${currency}, ${metrics}, ${groupings}) returning id`;
    for (const a of accounts)
      await sql`insert into report_ad_accounts (organization_id, report_id, ad_account_id)
        values (${org}, ${report.id}, ${a.id})`;
    return report.id as string;
  };
  ctx.report = await make('USD');
  ctx.eurReport = await make('EUR');
  // A segment report reads only its segments' campaigns: declared sums by campaign, not by account.
  const [segment] = await sql`insert into segments (organization_id, name) values (${org}, 'Some') returning id`;
  await sql`insert into segment_campaigns (organization_id, segment_id, campaign_id)
    select ${org}, ${segment.id}, id from campaigns where organization_id = ${org} and external_id in ('C1', 'C3', 'C7')`;
  const [report] = await sql`insert into reports (organization_id, name, kind, currency, metrics, groupings)
    values (${org}, 'Segments', 'segment', 'USD', ${metrics}, ${[...groupings, 'segment']}) returning id`;
  await sql`insert into report_segments (organization_id, report_id, segment_id) values (${org}, ${report.id}, ${segment.id})`;
  for (const a of accounts)
    await sql`insert into report_ad_accounts (organization_id, report_id, ad_account_id)
      values (${org}, ${report.id}, ${a.id})`;
  ctx.segmentReport = report.id;
});
it.after(async (ctx) => ctx.t.close());

/** The declared sums (migrations 048, 050, 052, 053) are those of the facts: by day, by month, over every span. */
async function rollupsHold(ctx: Ctx) {
  const slots = [1, 2, 3].map((i) => `sum(coalesce(declared[${i}], 0)) as d${i}`).join(', ');
  const differ = await ctx.t.db.sql.unsafe(`
    (select ad_account_id, day, campaign_id, d1, d2, d3 from declared_campaign_daily
     except select ad_account_id, day, campaign_id, ${slots} from facts where declared is not null group by 1, 2, 3)
    union all
    (select ad_account_id, day, campaign_id, ${slots} from facts where declared is not null group by 1, 2, 3
     except select ad_account_id, day, campaign_id, d1, d2, d3 from declared_campaign_daily)
    union all
    (select ad_account_id, month, campaign_id, d1, d2, d3 from declared_campaign_monthly
     except select ad_account_id, date_trunc('month', day::timestamp)::date, campaign_id, ${slots}
     from facts where declared is not null group by 1, 2, 3)
    union all
    (select ad_account_id, day, null::uuid, d1, d2, d3 from declared_account_daily
     except select ad_account_id, day, null::uuid, ${slots} from facts where declared is not null group by 1, 2)
    union all
    (select ad_account_id, month, null::uuid, d1, d2, d3 from declared_account_monthly
     except select ad_account_id, date_trunc('month', day::timestamp)::date, null::uuid, ${slots}
     from facts where declared is not null group by 1, 2)
    union all
    (select ad_account_id, month, creative_id, d1, d2, d3 from declared_creative_monthly
     except select ad_account_id, date_trunc('month', day::timestamp)::date, creative_id, ${slots}
     from facts where declared is not null group by 1, 2, 3)
    union all
    (select s.ad_account_id, s.start + s.level * 100000, s.campaign_id, s.d1, s.d2, s.d3 from declared_campaign_spans s
     except select f.ad_account_id, span_start(l.level, f.day) + l.level * 100000, f.campaign_id, ${slots}
     from facts f cross join unnest(array[2, 3, 4, 5, 6, 7, 8, 10]) l(level) where f.declared is not null
     group by f.ad_account_id, l.level, span_start(l.level, f.day), f.campaign_id)
    union all
    (select s.ad_account_id, s.start + s.level * 100000, s.creative_id, s.d1, s.d2, s.d3 from declared_creative_spans s
     except select f.ad_account_id, span_start(l.level, f.day) + l.level * 100000, f.creative_id, ${slots}
     from facts f cross join unnest(array[2, 3, 4, 5, 6, 7, 8, 10]) l(level) where f.declared is not null
     group by f.ad_account_id, l.level, span_start(l.level, f.day), f.creative_id)`);
  const [spans] = await ctx.t.db.sql`select
    (select count(*)::int from declared_campaign_spans) as kept,
    (select count(*)::int from (select distinct f.ad_account_id, l.level, span_start(l.level, f.day), f.campaign_id
       from facts f cross join unnest(array[2, 3, 4, 5, 6, 7, 8, 10]) l(level) where f.declared is not null) t) as wanted,
    (select count(*)::int from declared_creative_spans) as "keptByCreative",
    (select count(*)::int from (select distinct f.ad_account_id, l.level, span_start(l.level, f.day), f.creative_id
       from facts f cross join unnest(array[2, 3, 4, 5, 6, 7, 8, 10]) l(level) where f.declared is not null) t)
      as "wantedByCreative"`;
  assert.is(spans.kept, spans.wanted, 'a span for each campaign and span start that holds declared numbers');
  assert.is(spans.keptByCreative, spans.wantedByCreative, 'a span for each creative and span start likewise');
  assert.equal([...differ], [], 'declared rollups that differ from their facts');
}

const apply = (ctx: Ctx, yaml: string, ...flags: string[]) =>
  command(ctx, ['apply', '--org', ctx.org, '--file', 'readout.yaml', '--json', ...flags], yaml);

const command = (ctx: Ctx, argv: string[], file = '') =>
  runCommand(argv, { sql: ctx.t.db.sql, now: ctx.t.clock.now, progress: () => {}, readText: async () => file });

async function data(ctx: Ctx, report: string, query: string) {
  const res = await ctx.t.fetch(`/v1/reports/${report}/data?${query}`, bearer(ctx.token));
  const text = await res.text();
  assert.is(res.status, 200, `${query}: ${text}`);
  return JSON.parse(text);
}

const RANGE = 'dateFrom=2026-01-01&dateTo=2026-02-28';
const near = (a: number | null, b: number | null) =>
  a === null || b === null ? a === b : Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));

/** Each row's (and the summary's, the comparison's) declared twins equal their built-in metric. */
function twinsHold(answer: any, what: string) {
  const rows = [...answer.rows, ...(answer.summary ? [answer.summary] : [])];
  for (const row of rows) {
    for (const m of [row.metrics, row.compare?.metrics].filter(Boolean)) {
      assert.ok(near(m.leads, m.clicks), `${what}: leads ${m.leads} is clicks ${m.clicks}`);
      assert.ok(near(m.spend_again, m.spend), `${what}: spend_again ${m.spend_again} is spend ${m.spend}`);
      const cpl = m.spend === null || !m.leads ? null : m.spend / m.leads;
      assert.ok(near(m.cost_per_lead, cpl), `${what}: cost_per_lead ${m.cost_per_lead} is ${cpl}`);
    }
  }
  return rows.length;
}

const GROUPINGS = ['total', 'campaign', 'month', 'ad-account', 'video', 'creative'];
const SHAPES = [
  '',
  '&interval=day',
  '&interval=week',
  '&interval=month',
  '&summary=true',
  '&compareFrom=2026-01-01&compareTo=2026-01-06',
  '&summary=true&compareFrom=2026-01-05&compareTo=2026-01-07',
];

it('in every grouping, interval, summary and comparison, in both currencies, the twins are clicks and spend', async (ctx) => {
  let rows = 0;
  for (const report of [ctx.report, ctx.eurReport, ctx.segmentReport])
    for (const groupBy of report === ctx.segmentReport ? [...GROUPINGS, 'segment'] : GROUPINGS)
      for (const shape of SHAPES) {
        if (groupBy === 'month' && shape.includes('interval')) continue;
        const query = `${RANGE}&groupBy=${groupBy}${shape}`;
        rows += twinsHold(await data(ctx, report, query), query);
      }
  assert.ok(rows > 300, `${rows} rows compared`);
});

it('over ranges that start or end within a month, and over whole months only', async (ctx) => {
  const ranges = [
    'dateFrom=2026-01-05&dateTo=2026-02-28',
    'dateFrom=2026-01-01&dateTo=2026-01-31',
    'dateFrom=2026-01-06&dateTo=2026-02-10',
    'dateFrom=2026-01-02&dateTo=2026-02-01',
  ];
  for (const report of [ctx.report, ctx.eurReport])
    for (const range of ranges)
      for (const groupBy of GROUPINGS)
        for (const shape of ['', '&interval=month', '&summary=true']) {
          if (groupBy === 'month' && shape.includes('interval')) continue;
          const query = `${range}&groupBy=${groupBy}${shape}`;
          twinsHold(await data(ctx, report, query), query);
        }
});

it('sums the file: leads, and score with its decimals and empty cells as 0', async (ctx) => {
  const answer = await data(ctx, ctx.report, `${RANGE}&groupBy=total&metrics=leads,score`);
  const leads = LINES.reduce((sum, line) => sum + line[5], 0);
  const score = LINES.reduce((sum, line) => sum + Number(line[7] || 0), 0);
  assert.equal(answer.rows[0].metrics, { leads, score });
  // A money metric converts per day, at the latest rate on or before it: none before 2026-01-05, so null.
  const before = await data(ctx, ctx.report, `dateFrom=2026-01-02&dateTo=2026-01-02&metrics=spend_again`);
  assert.is(before.rows[0].metrics.spend_again, null);
  const after = await data(ctx, ctx.report, `dateFrom=2026-01-06&dateTo=2026-01-06&metrics=spend_again`);
  assert.is(after.rows[0].metrics.spend_again, 80 * 1.1);
});

it('filters and sorts on a declared metric as on a built-in one', async (ctx) => {
  for (const groupBy of ['campaign', 'creative']) {
    const asked = await data(
      ctx,
      ctx.report,
      `${RANGE}&groupBy=${groupBy}&filter=${encodeURIComponent('leads>=10')}&sort=leads&sortDesc=true&metrics=leads,clicks`,
    );
    const builtIn = await data(
      ctx,
      ctx.report,
      `${RANGE}&groupBy=${groupBy}&filter=${encodeURIComponent('clicks>=10')}&sort=clicks&sortDesc=true&metrics=leads,clicks`,
    );
    assert.equal(asked.rows, builtIn.rows, groupBy);
    assert.ok(asked.rows.length > 1);
  }
});

it('the CSV and XLSX exports and the catalogue carry them', async (ctx) => {
  const res = await ctx.t.fetch(
    `/v1/reports/${ctx.report}/export.csv?${RANGE}&groupBy=campaign&metrics=clicks,leads,spend,spend_again`,
    bearer(ctx.token),
  );
  assert.is(res.status, 200, await res.clone().text());
  const [header, ...rows] = csvRecords(await res.text());
  const at = (name: string) => header.indexOf(name);
  assert.ok(at('leads') > 0, header.join());
  for (const row of rows) {
    assert.is(row[at('leads')], row[at('clicks')]);
    assert.is(row[at('spend_again')], row[at('spend')]);
  }
  const xlsx = await ctx.t.fetch(
    `/v1/reports/${ctx.report}/export.xlsx?${RANGE}&groupBy=creative&metrics=leads,spend_again,score`,
    bearer(ctx.token),
  );
  assert.is(xlsx.status, 200);
  const catalogue = await (
    await ctx.t.fetch(`/v1/organizations/${ctx.org}/metrics?pageSize=200`, bearer(ctx.token))
  ).json();
  const declared = catalogue.data.filter((m: any) => ['leads', 'spend_again', 'score'].includes(m.name));
  assert.equal(
    declared.map((m: any) => [m.name, m.kind, m.system, m.conversionDerived, 'formula' in m]),
    [
      ['leads', 'count', false, false, false],
      ['score', 'count', false, false, false],
      ['spend_again', 'money', false, true, false],
    ],
  );
});

it('a conversion-derived declared metric is left out on a plan without conversion metrics', async (ctx) => {
  const sql = ctx.t.db.sql;
  // The plan is read again a second after it was last read (billing/plans.ts): once to refresh, once to see it.
  const seen = async (plan: string) => {
    await sql`update subscriptions set plan_code = ${plan} where organization_id = ${ctx.org}`;
    ctx.t.clock.advance(1_500);
    await data(ctx, ctx.report, `${RANGE}&metrics=leads`);
  };
  await seen('business');
  try {
    const answer = await data(ctx, ctx.report, `${RANGE}&metrics=leads,spend_again,spend`);
    assert.equal(Object.keys(answer.rows[0].metrics), ['leads', 'spend']);
  } finally {
    await seen('enterprise');
  }
});

it('a restatement and a rate change move the twins with clicks and spend', async (ctx) => {
  const restated = LINES.map((line): Line => [...line.slice(0, 5), line[5] + 3, line[6] * 2, '9'] as Line);
  const out = await importCsv(ctx.t, ctx.org, csv(restated.slice(0, 4)));
  assert.is(out.code, 0, out.stderr);
  await ctx.t.db
    .sql`insert into fx_rates (currency, day, usd_per_unit) values ('EUR', '2026-01-06', 1.15), ('EUR', '2026-01-01', 1.05)`;
  for (const groupBy of GROUPINGS) twinsHold(await data(ctx, ctx.report, `${RANGE}&groupBy=${groupBy}`), groupBy);
  await rollupsHold(ctx);
  const total = await data(ctx, ctx.report, `${RANGE}&metrics=score`);
  assert.is(total.rows[0].metrics.score, 9 * 4 + [3, 0, 1.5, 0.25, 1].reduce((a, b) => a + b));
});

it('a file without a declared column loads it as 0; a bad value is refused', async (ctx) => {
  const built = LINES.slice(0, 1).map(
    ([day, acct, campaign, creative, format, clicks, spend]) =>
      `${day},${account(acct)},${campaign},Campaign ${campaign},${creative},Creative ${creative},${format},` +
      `1000,${clicks},${spend},1,10,100,50`,
  );
  const out = await importCsv(ctx.t, ctx.org, [HEADER, ...built].join('\n'));
  assert.is(out.code, 0, out.stderr);
  const day = await data(ctx, ctx.report, 'dateFrom=2026-01-05&dateTo=2026-01-05&groupBy=creative&metrics=leads,score');
  const k1 = day.rows.find((row: any) => row.dimensions.creativeName === 'Creative K1');
  assert.equal(k1.metrics, { leads: 0, score: 0 });
  const bad = await importCsv(ctx.t, ctx.org, csv([['2026-01-05', 'M1', 'C1', 'K1', 'video', 1, 1, '-1']]));
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /score "-1" must be a non-negative number/);
  const fraction = csv([['2026-01-05', 'M1', 'C1', 'K1', 'video', 1, 1, '1']]).replace(/,1,1,1$/, ',1.5,1,1');
  const whole = await importCsv(ctx.t, ctx.org, fraction);
  assert.is(whole.code, 2);
  assert.match(whole.stderr, /leads "1.5" must be a non-negative whole number/);
});

it('apply refuses a ninth, a taken name and a removal still used; --prune removes one with its numbers', async (ctx) => {
  const nine = Array.from({ length: 6 }, (_, i) => `  - { name: extra_${i}, kind: count }`).join('\n');
  const tooMany = await apply(ctx, `${DECLARED.replace('metrics:\n', `${nine}\nmetrics:\n`)}`);
  assert.is(tooMany.code, 2, tooMany.stdout);
  assert.match(tooMany.stderr, /at most 8 base metrics; this would make 9/);
  const taken = await apply(ctx, 'baseMetrics:\n  - { name: clicks, kind: count }\n');
  assert.is(taken.code, 2, taken.stdout);
  assert.match(taken.stderr, /"clicks" is a system metric/);
  const used = await apply(
    ctx,
    'metrics:\n  - { name: cost_per_lead, kind: money, formula: spend / leads }\n',
    '--prune',
  );
  assert.is(used.code, 2, used.stdout);
  assert.match(used.stderr, /unknown metric "leads"/);
  const exported = await command(ctx, ['config', 'export', '--org', ctx.org]);
  assert.match(exported.stdout, /baseMetrics:\n {2}- name: leads\n/);
  assert.match(exported.stdout, /whole: false/);
  const again = await apply(ctx, exported.stdout);
  assert.is(again.code, 0, again.stderr);
  assert.equal(JSON.parse(again.stdout).changes, []);

  // The reports and the custom metric go with score's removal; then a new metric takes its slot, with no numbers.
  const sql = ctx.t.db.sql;
  await sql`delete from report_ad_accounts where organization_id = ${ctx.org}`;
  await sql`delete from report_segments where organization_id = ${ctx.org}`;
  await sql`delete from reports where organization_id = ${ctx.org}`;
  const removed = await apply(
    ctx,
    'baseMetrics:\n  - { name: leads, kind: count }\n  - { name: spend_again, kind: money }\n',
    '--prune',
  );
  assert.is(removed.code, 0, removed.stderr);
  const [slot] =
    await sql`select count(*)::int as n from facts where organization_id = ${ctx.org} and declared[3] <> 0`;
  assert.is(slot.n, 0);
  await rollupsHold(ctx);
  const added = await apply(
    ctx,
    'baseMetrics:\n  - { name: leads, kind: count }\n  - { name: spend_again, kind: money }\n' +
      '  - { name: installs, kind: count }\n',
  );
  assert.is(added.code, 0, added.stderr);
  const [installs] =
    await sql`select slot from custom_metrics where organization_id = ${ctx.org} and name = 'installs'`;
  assert.is(installs.slot, 3);
});

it.run();
