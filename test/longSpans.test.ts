// Migration 036 on a database that already holds facts: the spans of 1,024 days it sums from those of 256 are the
// ones a rebuild writes, native and converted, money null where a day has no rate (docs/decisions.md, data model).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { migrate } from '../src/store/migrate.ts';
import { migrationFiles } from '../src/store/sqlFiles.ts';
import { freshDatabase, type TestDatabase } from './support/database.ts';
import { createOrg } from './support/fixtures.ts';
import { HEADER, importBefore } from './support/importFixture.ts';

const it = suite<{ db: TestDatabase }>('spans of 1,024 days over facts loaded before them');
it.before(async (ctx) => {
  ctx.db = await freshDatabase({ migrated: false });
});
it.after(async (ctx) => ctx.db.close());

const FIRST = Date.parse('2024-11-01');
const day = (n: number) => new Date(FIRST + n * 86_400_000).toISOString().slice(0, 10);

/** Each level-10 span row, its money rounded past a sum's last bits (the order of a sum may differ). */
const longSpans = (db: TestDatabase) => db.sql`
  select 'creative' as kind, s.ad_account_id::text as account, s.start::text, s.currency, c.creative_id::text as id,
         c.impressions::text, c.clicks::text, round(c.spend::numeric, 6)::text as spend,
         round(c.conversion_value::numeric, 6)::text as value
  from facts_spans s cross join lateral span_creatives(array[s.ad_account_id], s.level, s.start, s.start, s.currency) c
  where s.level = 10
  union all
  select 'campaign', ad_account_id::text, start::text, currency, campaign_id::text, impressions::text, clicks::text,
         round(spend::numeric, 6)::text, round(conversion_value::numeric, 6)::text
  from facts_campaign_spans where level = 10
  order by 1, 2, 3, 4, 5`;

it('036 sums the spans of 1,024 days a rebuild would write, in every currency kept', async ({ db }) => {
  const before = migrationFiles().filter((f) => f.name < '036');
  await migrate(db.sql, before);
  const org = await createOrg(db.sql, { name: 'Long spans' });
  // Today's import picks the tables to analyse with migration 040's function: before it, one that picks none.
  await db.sql`create function facts_tables_to_analyze(boolean) returns setof text language sql as 'select null limit 0'`;
  // Two accounts over 700 days, across the level-10 edge of 2025-03-28; EUR rates only from 2025-12-25 (day 419), so
  // a EUR report's spans over the USD account's earlier days have no money, nor the long spans that hold them.
  const lines = [HEADER];
  for (let d = 0; d < 700; d += 3)
    for (const [account, currency] of [
      ['A1', 'USD'],
      ['A2', 'EUR'],
    ])
      lines.push(
        `${day(d)},meta-ads,${account},Account ${account},${currency},C${account}${d % 2},Campaign ${d % 2},` +
          `K${account}${d % 5},Creative ${d % 5},image,${100 + d},${d % 17},${(d % 40) / 4},1,${(d % 9) / 2},0,0`,
      );
  const out = await importBefore(db.sql, org, lines.join('\n'));
  assert.is(out.code, 0, out.stderr);
  await db.sql`insert into fx_rates (currency, day, usd_per_unit)
    select 'EUR', d::date, 1.05 + extract(day from d) / 1000 from generate_series(${day(419)}::date, ${day(700)}::date, interval '1 day') d`;
  await db.sql`insert into reports (organization_id, name, kind, currency, metrics)
    values (${org}, 'In EUR', 'standard', 'EUR', ${['spend']})`;

  await db.sql`drop function facts_tables_to_analyze(boolean)`;
  await migrate(db.sql);
  const migrated = await longSpans(db);
  assert.ok(migrated.length > 0, 'spans of 1,024 days written');
  assert.ok(new Set(migrated.map((s) => s.start)).size === 2, 'on both sides of the edge');
  // The USD account's spans in USD and in the report's EUR, the EUR account's in EUR.
  assert.is(new Set(migrated.map((s) => `${s.account} ${s.currency}`)).size, 3, 'native and converted spans');
  assert.ok(
    migrated.some((s) => s.spend === null),
    'a span with a day of no rate has no money',
  );
  await db.sql`select rebuild_spans(array_agg(ad_account_id), array_agg(day), null, true)
    from (select distinct ad_account_id, day from facts) t`;
  assert.equal(migrated, await longSpans(db));
});

it.run();
