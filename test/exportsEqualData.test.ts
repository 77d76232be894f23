// Exports equal the data (docs/decisions.md §7, §11): for random parameter sets over a fixture with nulls
// (unconvertible money, divisions by zero), every CSV and XLSX cell is the JSON's value, null an empty cell, on every
// export path (binary COPY, PostgreSQL-rendered rows, cursor; sorted, unsorted, a period at a time, custom metrics).
// The XLSX is read with read-excel-file, independent of our writer.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { readSheet } from 'read-excel-file/node';
import { Readable } from 'node:stream';
import { DIMENSION_KEYS } from '../src/report/dimensions.ts';
import type { Grouping } from '../src/report/params.ts';
import { testApp, type TestApp } from './support/app.ts';
import { csvRecords } from './support/csv.ts';
import { bearer, createClient, getToken } from './support/fixtures.ts';
import { fixtureReport, importCsv, HEADER } from './support/importFixture.ts';
import { createOrg } from './support/fixtures.ts';
import { propertyRuns } from './support/property.ts';

type Ctx = { t: TestApp; token: string; report: string; accounts: string[] };
const it = suite<Ctx>('exports equal the data');
it.before(async (ctx) => {
  const t = (ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400', HEAVY_PER_CLIENT: '8' } }));
  const org = await createOrg(t.db.sql, { currency: 'USD' });
  const { report, google, meta } = await fixtureReport(t, org, {
    metrics: ['impressions', 'clicks', 'spend', 'conversions', 'cpa', 'ctr', 'cpc', 'roas', 'video_views', 'per_view'],
  });
  // A CHF account without rates: its money is null wherever it is summed.
  const out = await importCsv(
    t,
    org,
    [
      HEADER,
      '2026-01-06,linkedin-ads,L1,=Franc +1,CHF,C9,"@Swiss ""quoted""",K9,Swiss image,image,700,7,70,1,10,0,0',
    ].join('\n'),
  );
  assert.is(out.code, 0, out.stderr);
  const [chf] = await t.db.sql`select id from ad_accounts where organization_id = ${org} and currency = 'CHF'`;
  await t.db
    .sql`insert into report_ad_accounts (organization_id, report_id, ad_account_id) values (${org}, ${report}, ${chf.id})`;
  await t.db.sql`insert into custom_metrics (organization_id, name, display_name, kind, unit, formula)
    values (${org}, 'per_view', 'Spend per view', 'money', 'currency', 'spend / video_views')`;
  ctx.token = await getToken(t, await createClient(t.db.sql, org));
  ctx.report = report;
  ctx.accounts = [google, meta, chf.id];
});
it.after(async (ctx) => ctx.t.close());

const METRICS = [
  'impressions',
  'clicks',
  'spend',
  'conversions',
  'cpa',
  'ctr',
  'cpc',
  'roas',
  'video_views',
  'per_view',
];
const DAYS = ['2026-01-05', '2026-01-06', '2026-01-07', '2026-02-10'];

/** A text cell as CSV guards it against formulas (OWASP): a leading ' before = + - @ tab CR. */
const guarded = (text: string) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);

it('CSV = XLSX = JSON, cell by cell, nulls included, for random parameter sets', async ({
  t,
  token,
  report,
  accounts,
}) => {
  const params = fc.record({
    groupBy: fc.constantFrom('total', 'campaign', 'month', 'ad-account', 'video', 'creative'),
    metrics: fc.subarray(METRICS, { minLength: 1 }),
    sort: fc.option(fc.nat(9)),
    sortDesc: fc.boolean(),
    nameFilter: fc.option(fc.constantFrom('a', 'Be', 'swiss', '"', 'zzz')),
    adAccountIds: fc.option(fc.subarray(accounts, { minLength: 1 })),
    interval: fc.option(fc.constantFrom('day', 'week', 'month')),
    range: fc.tuple(fc.nat(3), fc.nat(3)).map(([a, b]) => [DAYS[Math.min(a, b)], DAYS[Math.max(a, b)]]),
  });
  await fc.assert(
    fc.asyncProperty(params, async (p) => {
      const q = new URLSearchParams({
        groupBy: p.groupBy,
        dateFrom: p.range[0],
        dateTo: p.range[1],
        metrics: p.metrics.join(','),
      });
      if (p.sort !== null && ['campaign', 'video', 'creative'].includes(p.groupBy)) {
        q.set('sort', p.metrics[p.sort % p.metrics.length]);
        q.set('sortDesc', String(p.sortDesc));
      }
      if (p.nameFilter !== null && !['total', 'month'].includes(p.groupBy)) q.set('nameFilter', p.nameFilter);
      if (p.adAccountIds) q.set('adAccountIds', p.adAccountIds.join(','));
      if (p.interval !== null && p.groupBy !== 'month') q.set('interval', p.interval);
      const get = (what: string) => t.fetch(`/v1/reports/${report}/${what}?${q}`, bearer(token));
      const dataRes = await get('data');
      assert.is(dataRes.status, 200, q.toString());
      const data = await dataRes.json();
      const keys = [...(q.has('interval') ? [p.interval!] : []), ...DIMENSION_KEYS[p.groupBy as Grouping]];
      const expected = data.rows.map(
        (row: { dimensions: Record<string, unknown>; metrics: Record<string, number | null> }) => [
          ...keys.map((key) => row.dimensions[key]),
          ...data.metrics.map((m: string) => row.metrics[m]),
        ],
      );

      const csv = csvRecords(await (await get('export.csv')).text());
      assert.equal(csv[0], [...keys, ...data.metrics], `${q}: CSV header`);
      const csvCells = csv
        .slice(1)
        .map((record) => record.map((cell, i) => (i < keys.length ? cell : cell === '' ? null : Number(cell))));
      const csvExpected = expected.map((row: unknown[]) =>
        row.map((v, i) => (i < keys.length ? (v === null ? '' : guarded(String(v))) : v)),
      );
      assert.equal(csvCells, csvExpected, `${q}: CSV`);

      const xlsxBytes = Buffer.from(await (await get('export.xlsx')).arrayBuffer());
      const sheet = await readSheet(Readable.from(xlsxBytes));
      const xlsxCells = sheet.slice(1).map((row) => {
        const cells: unknown[] = row.map((v) => (v === undefined ? null : v));
        while (cells.length < data.metrics.length + keys.length) cells.push(null);
        return cells;
      });
      const xlsxExpected = expected.map((row: unknown[]) =>
        row.map((v, i) => (i < keys.length && v === '' ? null : v)),
      );
      // A row whose every cell is empty is kept in the file, but the reader leaves such rows out at the end.
      while (
        xlsxCells.length < xlsxExpected.length &&
        xlsxExpected[xlsxCells.length].every((v: unknown) => v === null)
      ) {
        xlsxCells.push(xlsxExpected[xlsxCells.length]);
      }
      assert.equal(
        xlsxCells,
        xlsxExpected,
        `${q}: XLSX ${JSON.stringify(sheet)} against ${JSON.stringify(xlsxExpected)}`,
      );
    }),
    propertyRuns(40, 10),
  );
});

it.run();
