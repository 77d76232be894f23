// Money in another currency than its ad accounts' (docs/decisions.md §5, §11), read from converted rollups (migration
// 019): random rate histories and random loads, in random order, and every grouping's money compared with a plain
// per-day computation made here from what was loaded. Gaps take the latest earlier rate, cross rates go through USD,
// and money with no rate on or before its day makes its row's money null, never a partial sum. Rows a day or a week at
// a time (migrations 021, 022) are checked the same way, and so is every span of days (migration 028).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { runCommand } from '../src/cli/run.ts';
import { testApp, type TestApp } from './support/app.ts';
import { bearer, createClient, createOrg, getToken } from './support/fixtures.ts';
import { HEADER, importCsv } from './support/importFixture.ts';
import { propertyRuns } from './support/property.ts';

const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY'] as const;
type Currency = (typeof CURRENCIES)[number];
const FIRST_DAY = Date.parse('2026-01-20');
const DAYS = 75; // 2026-01-20 to 2026-04-04: four months, none of them whole at both ends
const day = (n: number) => new Date(FIRST_DAY + n * 86_400_000).toISOString().slice(0, 10);
const ACCOUNTS = 3;
const CREATIVES = 2; // per account, one campaign each

type Fact = { account: number; creative: number; day: number; clicks: number; spend: number; value: number };
type Step =
  | { kind: 'facts'; facts: Fact[] }
  | { kind: 'rates'; rates: { currency: Currency; day: number; usdPerUnit: number }[] }
  | { kind: 'demo'; currency: Currency; from: number; to: number; usdPerUnit: number }
  /** A late correction: rates already loaded (picked by index) imported again with other values, and nothing else. */
  | { kind: 'correct'; picks: { at: number; usdPerUnit: number }[] }
  | { kind: 'currency'; currency: Currency };

const cents = fc.integer({ min: 0, max: 100_000 }).map((n) => n / 100);
const fact = fc.record({
  account: fc.integer({ min: 0, max: ACCOUNTS - 1 }),
  creative: fc.integer({ min: 0, max: CREATIVES - 1 }),
  day: fc.integer({ min: 0, max: DAYS - 1 }),
  clicks: fc.integer({ min: 0, max: 500 }),
  spend: cents,
  value: cents,
});
const rateCurrency = fc.constantFrom<Currency>('EUR', 'GBP', 'JPY');
const step: fc.Arbitrary<Step> = fc.oneof(
  // Loads and corrections weigh more than the rest: each is where a stale rollup would show.
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('facts' as const),
      facts: fc.array(fact, { minLength: 1, maxLength: 40 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('rates' as const),
      // Days before the facts' first, inside, and after, every third one, so later imports often replace a loaded day
      // (a late correction).
      rates: fc.uniqueArray(
        fc.record({
          currency: rateCurrency,
          day: fc.integer({ min: -3, max: DAYS / 3 + 1 }).map((n) => n * 3),
          usdPerUnit: fc.integer({ min: 1, max: 3000 }).map((n) => n / 1000),
        }),
        { minLength: 1, maxLength: 12, selector: (r) => `${r.currency}/${r.day}` },
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        kind: fc.constant('demo' as const),
        currency: rateCurrency,
        from: fc.integer({ min: -5, max: DAYS }),
        length: fc.integer({ min: 0, max: 40 }),
        usdPerUnit: fc.integer({ min: 1, max: 3000 }).map((n) => n / 1000),
      })
      .map(({ length, ...rest }) => ({ ...rest, to: rest.from + length })),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('currency' as const), currency: fc.constantFrom(...CURRENCIES) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('correct' as const),
      picks: fc.array(fc.record({ at: fc.nat(), usdPerUnit: fc.integer({ min: 1, max: 3000 }).map((n) => n / 1000) }), {
        minLength: 1,
        maxLength: 4,
      }),
    }),
  },
);
const scenario = fc.record({
  accountCurrencies: fc.tuple(...Array.from({ length: ACCOUNTS }, () => fc.constantFrom(...CURRENCIES))),
  reportCurrency: fc.constantFrom(...CURRENCIES),
  steps: fc.array(step, { minLength: 1, maxLength: 7 }),
  range: fc
    .tuple(fc.integer({ min: 0, max: DAYS - 1 }), fc.integer({ min: 0, max: DAYS - 1 }))
    .map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const),
});
/** Every run reads the whole span (two whole months from the rollups, the edges converted as read) and a random range. */
const EVERY_DAY = [0, DAYS - 1] as const;

/** What was loaded, as the test saw it: the reference the answers are checked against. */
class Model {
  facts = new Map<string, Fact>();
  /** currency → day → [USD per unit, source] */
  rates = new Map<Currency, Map<number, { usdPerUnit: number; source: 'import' | 'demo' }>>();
  constructor(readonly accountCurrencies: Currency[]) {}

  apply(s: Step) {
    if (s.kind === 'facts') for (const f of s.facts) this.facts.set(`${f.account}/${f.creative}/${f.day}`, f);
    if (s.kind === 'rates') {
      // An import removes the demo's rates of every currency it loads (docs/decisions.md §11).
      for (const currency of new Set(s.rates.map((r) => r.currency))) {
        for (const [d, rate] of this.days(currency)) if (rate.source === 'demo') this.days(currency).delete(d);
      }
      for (const r of s.rates) this.days(r.currency).set(r.day, { usdPerUnit: r.usdPerUnit, source: 'import' });
    }
    if (s.kind === 'demo')
      for (let d = s.from; d <= s.to; d++)
        if (!this.days(s.currency).has(d)) this.days(s.currency).set(d, { usdPerUnit: s.usdPerUnit, source: 'demo' });
  }

  /** The loaded rates the picks name, with their new values (one per currency and day). */
  corrections(picks: { at: number; usdPerUnit: number }[]) {
    const loaded = [...this.rates].flatMap(([currency, days]) => [...days.keys()].map((d) => ({ currency, day: d })));
    const chosen = new Map<string, { currency: Currency; day: number; usdPerUnit: number }>();
    if (loaded.length)
      for (const p of picks)
        chosen.set(`${loaded[p.at % loaded.length].currency}/${loaded[p.at % loaded.length].day}`, {
          ...loaded[p.at % loaded.length],
          usdPerUnit: p.usdPerUnit,
        });
    return [...chosen.values()];
  }

  private days(currency: Currency) {
    let days = this.rates.get(currency);
    if (!days) this.rates.set(currency, (days = new Map()));
    return days;
  }

  /** USD per unit on a day: that day's rate, else the latest earlier one; null before the first. */
  usd(currency: Currency, on: number): number | null {
    if (currency === 'USD') return 1;
    let best: number | undefined;
    for (const d of this.rates.get(currency)?.keys() ?? []) if (d <= on && (best === undefined || d > best)) best = d;
    return best === undefined ? null : this.rates.get(currency)!.get(best)!.usdPerUnit;
  }

  /** Each row's clicks, spend and conversion value, keyed as keyOf says, over the range, in currency. */
  expected(currency: Currency, [from, to]: readonly [number, number], keyOf: (f: Fact) => string | null) {
    const rows = new Map<string, { clicks: number; spend: number | null; value: number | null }>();
    for (const f of this.facts.values()) {
      if (f.day < from || f.day > to) continue;
      const key = keyOf(f);
      if (key === null) continue;
      const source = this.accountCurrencies[f.account];
      const a = this.usd(source, f.day);
      const b = this.usd(currency, f.day);
      const factor = source === currency ? 1 : a === null || b === null ? null : a / b;
      const row = rows.get(key) ?? { clicks: 0, spend: 0, value: 0 };
      row.clicks += f.clicks;
      row.spend = row.spend === null || factor === null ? null : row.spend + f.spend * factor;
      row.value = row.value === null || factor === null ? null : row.value + f.value * factor;
      rows.set(key, row);
    }
    return rows;
  }
}

const close = (actual: number | null, expected: number | null) =>
  actual === null || expected === null
    ? actual === expected
    : Math.abs(actual - expected) <= 1e-6 * Math.max(1, Math.abs(expected)) + 2e-6;

const it = suite('converted rollups');

let t: TestApp;
it.before(async () => {
  t = await testApp({ env: { TOKEN_TTL_S: '86400' } });
});
it.after(async () => {
  await t?.close();
});

const PLATFORMS = ['meta-ads', 'google-ads', 'linkedin-ads'];
const GROUPINGS = ['total', 'campaign', 'month', 'ad-account', 'creative', 'video'] as const;

it('every grouping in any currency equals a per-day conversion of what was loaded, whatever the order of loads', async () => {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(scenario, async ({ accountCurrencies, reportCurrency, steps, range: random }) => {
      run++;
      // Rates are shared by every organization: each run starts from none, with an organization of its own.
      await t.db.sql`delete from fx_rates`;
      const model = new Model(accountCurrencies);
      const org = await createOrg(t.db.sql, { name: `Run ${run}` });
      const accountOf = (i: number) => `${PLATFORMS[i]}/A${i}`;
      const csvLine = (f: Fact) =>
        [
          day(f.day),
          PLATFORMS[f.account],
          `A${f.account}`,
          `Account ${f.account}`,
          accountCurrencies[f.account],
          `C${f.account}`,
          `Campaign ${f.account}`,
          `K${f.account}-${f.creative}`,
          `Creative ${f.account}-${f.creative}`,
          f.creative === 0 ? 'video' : 'image',
          1000,
          f.clicks,
          f.spend,
          1,
          f.value,
          0,
          0,
        ].join(',');
      // Every account exists from the start (one zero fact on the first day), so the report can name them all.
      const seed: Fact[] = Array.from({ length: ACCOUNTS }, (_, account) => ({
        account,
        creative: 0,
        day: 0,
        clicks: 0,
        spend: 0,
        value: 0,
      }));
      const imported = await importCsv(t, org, [HEADER, ...seed.map(csvLine)].join('\n'));
      assert.is(imported.code, 0, imported.stderr);
      model.apply({ kind: 'facts', facts: seed });
      let currency: Currency = reportCurrency;
      const applyReport = async () => {
        const yaml = JSON.stringify({
          reports: [
            {
              name: 'Agency',
              kind: 'standard',
              currency,
              adAccounts: Array.from({ length: ACCOUNTS }, (_, i) => accountOf(i)),
              metrics: ['clicks', 'spend', 'conversion_value'],
              groupings: [...GROUPINGS],
            },
          ],
        });
        const out = await runCommand(['apply', '--org', org, '--file', 'r.yaml', '--json'], {
          sql: t.db.sql,
          now: t.clock.now,
          progress: () => {},
          readText: async () => yaml,
        });
        assert.is(out.code, 0, out.stderr);
      };
      await applyReport();
      for (const s of steps) {
        if (s.kind === 'facts') {
          const out = await importCsv(t, org, [HEADER, ...s.facts.map(csvLine)].join('\n'));
          assert.is(out.code, 0, out.stderr);
        } else if (s.kind === 'rates' || s.kind === 'correct') {
          const rates = s.kind === 'rates' ? s.rates : model.corrections(s.picks);
          if (rates.length === 0) continue;
          const text = [
            'date,currency,usd_per_unit',
            ...rates.map((r) => `${day(r.day)},${r.currency},${r.usdPerUnit}`),
          ].join('\n');
          const out = await runCommand(['fx', 'import', '--file', 'r.csv', '--json'], {
            sql: t.db.sql,
            now: t.clock.now,
            progress: () => {},
            readText: async () => text,
          });
          assert.is(out.code, 0, out.stderr);
        } else if (s.kind === 'demo') {
          // As the demo writes its rates: only on days that have none.
          await t.db.sql`insert into fx_rates (currency, day, usd_per_unit, source)
            select ${s.currency}, d::date, ${s.usdPerUnit}, 'demo' from generate_series(${day(s.from)}::date, ${day(s.to)}::date, interval '1 day') d
            on conflict do nothing`;
        } else {
          currency = s.currency;
          await applyReport();
        }
        model.apply(s.kind === 'correct' ? { kind: 'rates', rates: model.corrections(s.picks) } : s);
      }

      const token = await getToken(t, await createClient(t.db.sql, org, { name: `c${run}` }));
      const [report] = await t.db.sql`select id from reports where organization_id = ${org}`;
      const keys: Record<(typeof GROUPINGS)[number], (f: Fact) => string | null> = {
        total: () => '',
        campaign: (f) => `Campaign ${f.account}`,
        month: (f) => day(f.day).slice(0, 7),
        'ad-account': (f) => `Account ${f.account}`,
        creative: (f) => `Creative ${f.account}-${f.creative}`,
        video: (f) => (f.creative === 0 ? `Creative ${f.account}-${f.creative}` : null),
      };
      const nameOf = (g: (typeof GROUPINGS)[number], d: Record<string, string>) =>
        g === 'total' ? '' : g === 'month' ? d.month : (d.campaignName ?? d.adAccountName ?? d.creativeName);
      for (const grouping of GROUPINGS)
        for (const range of [EVERY_DAY, random]) {
          const res = await t.fetch(
            `/v1/reports/${report.id}/data?groupBy=${grouping}&dateFrom=${day(range[0])}&dateTo=${day(range[1])}`,
            bearer(token),
          );
          assert.is(res.status, 200, grouping);
          const body = (await res.json()) as {
            currency: string;
            rows: { dimensions: Record<string, string>; metrics: Record<string, number | null> }[];
          };
          assert.is(body.currency, currency);
          const expected = model.expected(currency, range, keys[grouping]);
          // A total over no facts is one row of zeros; any other grouping has a row only where there are facts.
          if (grouping === 'total' && expected.size === 0) expected.set('', { clicks: 0, spend: 0, value: 0 });
          assert.is(body.rows.length, expected.size, `${grouping}: rows`);
          for (const row of body.rows) {
            const want = expected.get(nameOf(grouping, row.dimensions));
            assert.ok(want, `${grouping}: unexpected row ${JSON.stringify(row.dimensions)}`);
            const where = `${grouping} ${JSON.stringify(row.dimensions)} in ${currency}: got ${JSON.stringify(row.metrics)}, want ${JSON.stringify(want)}`;
            assert.is(row.metrics.clicks, want!.clicks, where);
            assert.ok(close(row.metrics.spend, want!.spend), where);
            assert.ok(close(row.metrics.conversion_value, want!.value), where);
          }
        }
      // The spans of migration 028 themselves, per creative and per campaign: each one's sums are those of its days.
      const spanRows = await t.db.sql`
        select 'creative' as kind, s.level, s.start::text as start, cr.name, c.clicks::float8 as clicks, c.spend,
               c.conversion_value
        from facts_spans s
        cross join lateral span_creatives(array[s.ad_account_id], s.level, s.start, s.start, s.currency) c
        join creatives cr on cr.id = c.creative_id
        where cr.organization_id = ${org} and s.currency = ${currency}
        union all
        select 'campaign', s.level, s.start::text, c.name, s.clicks::float8, s.spend, s.conversion_value
        from facts_campaign_spans s join campaigns c on c.id = s.campaign_id
        where s.organization_id = ${org} and s.currency = ${currency}`;
      assert.ok(spanRows.length > 0, 'spans kept');
      for (const span of spanRows) {
        const first = Math.round((Date.parse(span.start) - FIRST_DAY) / 86_400_000);
        const days = [first, first + 2 ** span.level - 1] as const;
        const want = model.expected(currency, days, keys[span.kind as 'creative' | 'campaign']).get(span.name);
        const where = `${span.kind} span ${span.level}/${span.start} of ${span.name} in ${currency}: ${JSON.stringify(span)}, want ${JSON.stringify(want)}`;
        assert.ok(want, where);
        assert.is(span.clicks, want!.clicks, where);
        assert.ok(close(span.spend, want!.spend), where);
        assert.ok(close(span.conversion_value, want!.value), where);
      }
      // A day, a week or a month at a time (the daily rollups of campaigns and accounts, the monthly ones of creatives
      // and campaigns, native and converted): each period's rows, as the grouping's over that period alone.
      const monday = (d: string) =>
        new Date(Date.parse(d) - ((new Date(d).getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
      for (const interval of ['day', 'week', 'month'] as const)
        for (const grouping of ['total', 'campaign', 'ad-account', 'creative'] as const) {
          const res = await t.fetch(
            `/v1/reports/${report.id}/data?groupBy=${grouping}&interval=${interval}&dateFrom=${day(random[0])}&dateTo=${day(random[1])}`,
            bearer(token),
          );
          assert.is(res.status, 200, `${grouping} × ${interval}`);
          const body = (await res.json()) as {
            rows: { dimensions: Record<string, string>; metrics: Record<string, number | null> }[];
          };
          const periodOf = (f: Fact) =>
            interval === 'day' ? day(f.day) : interval === 'week' ? monday(day(f.day)) : day(f.day).slice(0, 7);
          const expected = model.expected(currency, random, (f) => `${periodOf(f)} ${keys[grouping](f)}`);
          assert.is(body.rows.length, expected.size, `${grouping} × ${interval}: rows`);
          for (const row of body.rows) {
            const want = expected.get(`${row.dimensions[interval]} ${nameOf(grouping, row.dimensions)}`);
            const where = `${grouping} × ${interval} ${JSON.stringify(row.dimensions)} in ${currency}: got ${JSON.stringify(row.metrics)}, want ${JSON.stringify(want)}`;
            assert.ok(want, where);
            assert.is(row.metrics.clicks, want!.clicks, where);
            assert.ok(close(row.metrics.spend, want!.spend), where);
            assert.ok(close(row.metrics.conversion_value, want!.value), where);
          }
        }
    }),
    { ...propertyRuns(40, 8), endOnFailure: true },
  );
});

it.run();
