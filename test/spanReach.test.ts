// A span read widened over days that hold none of its accounts' facts (migration 032): the same sums as the facts of
// the range itself, for random loads and restatements scattered over two years around random ranges, and fewer spans
// read when the range holds an account's whole history. (Converted spans under rate corrections: conversionProperty.)
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { testApp, type TestApp } from './support/app.ts';
import { createOrg } from './support/fixtures.ts';
import { HEADER, importCsv } from './support/importFixture.ts';

const it = suite<{ t: TestApp }>('span reads widened where no facts are');
it.before(async (ctx) => {
  ctx.t = await testApp();
});
it.after(async (ctx) => ctx.t.close());

const FIRST_DAY = Date.parse('2025-01-01');
const DAYS = 730;
const day = (n: number) => new Date(FIRST_DAY + n * 86_400_000).toISOString().slice(0, 10);

type Fact = { account: number; creative: number; day: number; clicks: number };
/** Facts in clusters, so ranges fall both beside facts and in long stretches without any. */
const facts = fc
  .array(
    fc.record({
      account: fc.integer({ min: 0, max: 1 }),
      creative: fc.integer({ min: 0, max: 2 }),
      centre: fc.integer({ min: 0, max: DAYS - 1 }),
      spread: fc.integer({ min: 0, max: 40 }),
      days: fc.integer({ min: 1, max: 6 }),
      clicks: fc.integer({ min: 1, max: 1000 }),
    }),
    { minLength: 1, maxLength: 6 },
  )
  .map((clusters) => {
    const out = new Map<string, Fact>();
    for (const c of clusters)
      for (let i = 0; i < c.days; i++) {
        const d = Math.min(DAYS - 1, c.centre + Math.round((i * c.spread) / c.days));
        out.set(`${c.account}/${c.creative}/${d}`, {
          account: c.account,
          creative: c.creative,
          day: d,
          clicks: c.clicks,
        });
      }
    return [...out.values()];
  });
const range = fc
  .tuple(fc.integer({ min: 0, max: DAYS - 1 }), fc.integer({ min: 0, max: DAYS - 1 }))
  .map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const);

const csv = (rows: Fact[]) =>
  [
    HEADER,
    ...rows.map(
      (f) =>
        // A creative's campaign is its account's: creative c of account a is K{a}{c} in campaign C{a}.
        `${day(f.day)},meta-ads,A${f.account},Account ${f.account},USD,C${f.account},Campaign ${f.account},` +
        `K${f.account}${f.creative},Creative ${f.account}${f.creative},image,${f.clicks * 10},${f.clicks},` +
        `${f.clicks / 4},0,0,0,0`,
    ),
  ].join('\n');

it('a widened span read sums exactly the facts of its range, per creative and per campaign', async ({ t }) => {
  const sql = t.db.sql;
  await fc.assert(
    fc.asyncProperty(
      fc.array(facts, { minLength: 1, maxLength: 3 }),
      fc.array(range, { minLength: 1, maxLength: 4 }),
      async (loads, ranges) => {
        const org = await createOrg(sql, { name: 'Spans' });
        // Each load after the first restates the days it shares with those before and adds others.
        for (const rows of loads) {
          const out = await importCsv(t, org, csv(rows));
          assert.is(out.code, 0, out.stderr);
        }
        const [{ accounts }] =
          await sql`select array_agg(id) as accounts from ad_accounts where organization_id = ${org}`;
        const [{ first, last }] = await sql`
        select min(day)::text as first, max(day)::text as last from facts where organization_id = ${org}`;
        // Each account's whole history too: the read the widening is for.
        for (const [from, to] of [[first, last], ...ranges.map(([a, b]) => [day(a), day(b)])]) {
          for (const [fn, key] of [
            ['report_creative_spans', 'creative_id'],
            ['report_campaign_spans', 'campaign_id'],
          ]) {
            const spans = await sql.unsafe(
              `select ${key}::text as key, sum(clicks)::int as clicks, sum(spend) as spend, sum(impressions)::int as shown
             from ${fn}($1, null, $2, $3, 'USD') group by 1 order by 1`,
              [accounts, from, to] as never[],
            );
            const plain = await sql.unsafe(
              `select ${key}::text as key, sum(clicks)::int as clicks, sum(spend) as spend, sum(impressions)::int as shown
             from facts where ad_account_id = any($1) and day between $2 and $3 group by 1 order by 1`,
              [accounts, from, to] as never[],
            );
            assert.equal(spans, plain, `${fn} ${from}..${to}`);
          }
        }
      },
    ),
    { numRuns: 25, endOnFailure: true },
  );
});

it('a whole history reads one span of 1,024 days, not six and single days', async ({ t }) => {
  const sql = t.db.sql;
  const org = await createOrg(sql, { name: 'Whole history' });
  // 400 days ending on a Wednesday: the range's own pieces are spans of 4 to 256 days and single days at both ends.
  const rows = Array.from({ length: 400 }, (_, d) => ({ account: 0, creative: 0, day: 100 + d, clicks: 1 }));
  const out = await importCsv(t, org, csv(rows));
  assert.is(out.code, 0, out.stderr);
  const [{ accounts }] = await sql`select array_agg(id) as accounts from ad_accounts where organization_id = ${org}`;
  const pieces = async (fn: string, from: string, to: string) =>
    fn === 'span_pieces'
      ? (await sql`select count(*)::int as n from span_pieces(${from}, ${to})`)[0].n
      : (await sql`select count(*)::int as n from report_span_pieces(${accounts}, ${from}, ${to})`)[0].n;
  const whole = [day(100), day(499)] as const;
  assert.ok((await pieces('span_pieces', ...whole)) >= 8, 'the range alone is many pieces');
  // 2025-04-11 to 2026-05-15, inside the span of 1,024 days from 2025-03-28 (migration 036).
  assert.is(await pieces('report_span_pieces', ...whole), 1, 'widened: the span of 1,024 days around it');
  // Facts on both sides: nothing to widen over, the range's own pieces.
  const inner = [day(203), day(390)] as const;
  assert.is(await pieces('report_span_pieces', ...inner), await pieces('span_pieces', ...inner));
  // A history across that span's first day: the two spans of 1,024 days either side.
  const earlier = await importCsv(t, org, csv([{ account: 0, creative: 0, day: 10, clicks: 1 }]));
  assert.is(earlier.code, 0, earlier.stderr);
  assert.is(await pieces('report_span_pieces', day(10), day(499)), 2, 'two spans of 1,024 days');
  // A short range at the end is not widened into more pieces than its own.
  const lastWeek = [day(493), day(499)] as const;
  assert.ok((await pieces('report_span_pieces', ...lastWeek)) <= (await pieces('span_pieces', ...lastWeek)));
});

it.run();
