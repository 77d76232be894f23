// XLSX for people: a bold frozen header, columns as wide as their header, each metric shown by its kind, and text as
// it is, on both ways a worksheet is written (rows rendered by PostgreSQL, and rows written from cells).
import { createRequire } from 'node:module';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { strFromU8, unzipSync } from 'fflate';
import { testApp, type TestApp } from './support/app.ts';
import { bearer, createClient, createOrg, getToken } from './support/fixtures.ts';
import { fixtureReport } from './support/importFixture.ts';

type Ctx = { t: TestApp; token: string; report: string };
const it = suite<Ctx>('worksheet layout');
it.before(async (ctx) => {
  const t = (ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400' } }));
  const org = await createOrg(t.db.sql);
  ({ report: ctx.report } = await fixtureReport(t, org, {
    metrics: ['impressions', 'spend', 'ctr', 'roas', 'per_click'],
  }));
  await t.db.sql`insert into custom_metrics (organization_id, name, display_name, kind, unit, formula)
    values (${org}, 'per_click', 'Spend per click', 'money', 'currency', 'spend / clicks')`;
  await t.db.sql`update campaigns set name = '=SUM(A1)' where organization_id = ${org} and external_id = 'C3'`;
  ctx.token = await getToken(t, await createClient(t.db.sql, org));
});
it.after(async (ctx) => ctx.t.close());

it("xlsx-write-stream's templates are where sheetLayout.ts replaces them (the version is pinned; this fails if they move)", () => {
  const require = createRequire(import.meta.url);
  for (const name of ['styles', 'sheet-header']) {
    const template = require(`xlsx-write-stream/dist/templates/${name}.js`);
    assert.type(template.default, 'string', name);
  }
  const pkg = require('../package.json');
  assert.is(pkg.dependencies['xlsx-write-stream'], '1.0.3', 'pinned exactly');
});

for (const [path, metrics] of [
  ['rendered by PostgreSQL', 'impressions,spend,ctr,roas'],
  ['written from cells (a custom metric)', 'impressions,spend,ctr,roas,per_click'],
] as const) {
  it(`bold frozen header, widths, formats by kind, text as it is: ${path}`, async ({ t, token, report }) => {
    const res = await t.fetch(
      `/v1/reports/${report}/export.xlsx?dateFrom=2026-01-01&dateTo=2026-01-31&groupBy=campaign&metrics=${metrics}`,
      bearer(token),
    );
    assert.is(res.status, 200);
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    const styles = strFromU8(files['xl/styles.xml']);
    const sheet = strFromU8(files['xl/worksheets/sheet1.xml']);
    assert.match(styles, /<font><b\/>/, 'a bold font');
    assert.match(styles, /<xf numFmtId="4"[^>]*applyNumberFormat="1"\/>/, '#,##0.00');
    assert.match(sheet, /<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"\/>/);
    // Campaign ID, Campaign, Ad account ID, External ID, Impressions, Spend, Click-through rate (header 18 characters).
    assert.match(sheet, /<col min="7" max="7" width="21" customWidth="1"\/>/);
    const header = /<row r="1">(.*?)<\/row>/.exec(sheet)![1];
    assert.is(header.match(/ s="1"/g)?.length, metrics.split(',').length + 4, 'every header cell bold');
    const row = /<row r="2">(.*?)<\/row>/.exec(sheet)![1];
    assert.match(row, /<c r="E2" s="3" t="n">/, 'impressions: a count, #,##0');
    assert.match(row, /<c r="F2" s="4" t="n">/, 'spend: money, #,##0.00');
    assert.match(row, /<c r="G2" s="2" t="n">/, 'ctr: a percent, 0.00');
    if (metrics.includes('per_click'))
      assert.match(sheet, /<c r="I\d" s="4" t="n">/, 'a custom money metric, #,##0.00');
    assert.match(sheet, /<t>=SUM\(A1\)<\/t>/, 'text as it is, no apostrophe');
    assert.not.match(sheet, /<t>'/);
  });
}

it.run();
