// The base metrics declared once (src/dataModel.ts, docs/lattice.md): sql/lattice/lattice.sql is what
// `npm run sql:lattice` writes, no list of every base metric is written out by hand, and a metric added to the
// declaration reaches a database that already holds facts: its column on the facts and on every table of sums, kept by
// the same triggers, read back summed by every grouping's query, in one currency and converted.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { latticeSql, LATTICE_FILE, TEMPLATE_FILE } from '../scripts/lattice.ts';
import { withPlaceholders } from '../scripts/baseListsFind.ts';
import { BASE_METRIC_DECLARATIONS, type BaseMetricDeclaration } from '../src/dataModel.ts';
import { expandBaseLists } from '../src/store/baseLists.ts';
import { migrate } from '../src/store/migrate.ts';
import { statement } from '../src/store/queries.ts';
import { migrationFiles } from '../src/store/sqlFiles.ts';
import { freshDatabase, type TestDatabase } from './support/database.ts';
import { createOrg } from './support/fixtures.ts';
import { FIXTURE_CSV, importInto } from './support/importFixture.ts';

const it = suite<{ db: TestDatabase }>('the base metrics declared once');
it.before(async (ctx) => {
  ctx.db = await freshDatabase();
});
it.after(async (ctx) => ctx.db.close());

it('sql/lattice/lattice.sql is what npm run sql:lattice writes', () => {
  assert.fixture(readFileSync(LATTICE_FILE, 'utf8'), latticeSql());
});

it('no SQL lists every base metric but through a {{base: …}} placeholder', () => {
  const files = [TEMPLATE_FILE, ...readdirSync('sql/queries').map((file) => `sql/queries/${file}`)];
  // generate-facts.sql makes up numbers for the built-in metrics one by one; a metric added later is 0 there.
  const written = files.filter(
    (file) =>
      !file.endsWith('generate-facts.sql') &&
      withPlaceholders(readFileSync(file, 'utf8')) !== readFileSync(file, 'utf8'),
  );
  assert.equal(written, []);
});

const near = (a: number | null, b: number | null) =>
  a === null || b === null ? a === b : Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

const LEADS: BaseMetricDeclaration = {
  name: 'leads',
  displayName: 'Leads',
  kind: 'count',
  conversionDerived: false,
  unit: 'leads',
  description: 'Leads.',
};
const REFUNDS: BaseMetricDeclaration = { ...LEADS, name: 'refunds', kind: 'money', unit: 'currency' };
const WITH_NEW = [...BASE_METRIC_DECLARATIONS, LEADS, REFUNDS];

it('a metric added to the declaration reaches a database that holds facts, and every grouping reads it', async ({
  db,
}) => {
  const sql = db.sql;
  const org = await createOrg(sql, { name: 'Lattice' });
  const loaded = await importInto(sql, org, FIXTURE_CSV);
  assert.is(loaded.code, 0, loaded.stderr);
  await sql`insert into fx_rates (currency, day, usd_per_unit) values ('EUR', '2026-01-05', 1.1), ('EUR', '2026-02-01', 1.2)`;
  // A report in USD keeps converted sums of the EUR account (converted_currencies).
  await sql`insert into reports (organization_id, name, kind, currency, metrics) values (${org}, 'R', 'standard', 'USD', ${['clicks']})`;
  const [segment] = await sql`insert into segments (organization_id, name) values (${org}, 'All') returning id`;
  await sql`insert into segment_campaigns (organization_id, segment_id, campaign_id)
    select ${org}, ${segment.id}, id from campaigns where organization_id = ${org}`;

  const lattice = latticeSql(WITH_NEW);
  assert.equal(await migrate(sql, [{ name: 'lattice-with-leads', text: lattice }]), ['lattice-with-leads']);
  const [zero] = await sql`select count(*)::int as n from facts where leads <> 0 or refunds <> 0`;
  assert.is(zero.n, 0);
  // New numbers for the new metrics: leads as clicks, refunds as spend, so every sum of them is known.
  await sql`update facts set leads = clicks, refunds = spend where organization_id = ${org}`;

  const accounts = (await sql`select id from ad_accounts where organization_id = ${org}`).map((a) => a.id);
  const groupings = readdirSync('sql/queries').filter((f) => /^report-(data|periods|days)-/.test(f));
  let compared = 0;
  for (const file of groupings) {
    const text = expandBaseLists(readFileSync(`sql/queries/${file}`, 'utf8'), WITH_NEW);
    const periods = file.startsWith('report-periods') || file.startsWith('report-days');
    for (const [currency, from, to] of [
      ['USD', '2026-01-01', '2026-02-28'],
      ['EUR', '2026-01-05', '2026-01-06'],
      ['EUR', '2026-01-01', '2026-03-31'],
    ]) {
      const params = {
        accountIds: accounts,
        campaignIds: null,
        from,
        to,
        currency,
        nameFilter: null,
        interval: periods ? (file.includes('days') ? 'day' : 'week') : null,
        changedSince: null,
        segmentIds: [segment.id],
        video: false,
      };
      const rows = await statement<Record<string, number>>(sql, text, params);
      for (const row of rows) {
        assert.is(row.leads, row.clicks, `${file} ${currency} ${from}: leads`);
        assert.ok(
          near(row.refunds, row.spend),
          `${file} ${currency} ${from}: refunds ${row.refunds}, spend ${row.spend}`,
        );
        compared++;
      }
    }
  }
  assert.ok(compared > 40, `${compared} rows compared`);

  // The declaration as it stands again: its lattice applies again (the added columns stay: nothing is dropped).
  const current = migrationFiles().at(-1)!.name;
  assert.equal(await migrate(sql), [current]);
  assert.equal(await migrate(sql), []);
});

it.run();
