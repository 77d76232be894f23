// Migration 046 on a database that already holds facts: each span of an account, a row a creative before, becomes
// one row whose arrays hold the same creatives' sums, native and converted; a rebuild then writes the same.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { migrate } from '../src/store/migrate.ts';
import { migrationFiles } from '../src/store/sqlFiles.ts';
import { freshDatabase, type TestDatabase } from './support/database.ts';
import { createOrg } from './support/fixtures.ts';
import { HEADER, importBefore } from './support/importFixture.ts';

const it = suite<{ db: TestDatabase }>('spans as one row a span');
it.before(async (ctx) => {
  ctx.db = await freshDatabase({ migrated: false });
});
it.after(async (ctx) => ctx.db.close());

const FIRST = Date.parse('2025-06-01');
const day = (n: number) => new Date(FIRST + n * 86_400_000).toISOString().slice(0, 10);
const SPAN = 's.ad_account_id::text as account, s.level, s.start::text as start, s.currency';
// Money rounded past a sum's last bits: a rebuild may add a span's days in another order.
const CREATIVE =
  'creative_id::text as creative, campaign_id::text as campaign, impressions::text, clicks::text, ' +
  'round(spend::numeric, 9)::text as spend, conversions, round(conversion_value::numeric, 9)::text as value, ' +
  'video_views::text, video_completions::text';

it('046 keeps every creative sum of every span, one row a span of an account', async ({ db }) => {
  await migrate(
    db.sql,
    migrationFiles().filter((f) => f.name < '046'),
  );
  const org = await createOrg(db.sql, { name: 'Span sets' });
  await db.sql`insert into fx_rates (currency, day, usd_per_unit)
    select 'EUR', d::date, 1.05 + extract(day from d) / 1000
    from generate_series(${day(0)}::date, ${day(90)}::date, interval '1 day') d`;
  await db.sql`insert into reports (organization_id, name, kind, currency, metrics)
    values (${org}, 'In EUR', 'standard', 'EUR', ${['spend']})`;
  const lines = [HEADER];
  for (let d = 0; d < 80; d += 2)
    for (const [account, currency] of [
      ['A1', 'USD'],
      ['A2', 'EUR'],
    ])
      for (let k = 0; k < 3; k++)
        lines.push(
          `${day(d)},meta-ads,${account},Account ${account},${currency},C${account}${k % 2},Campaign ${k % 2},` +
            `K${account}${k},Creative ${k},image,${100 + d + k},${d % 17},${(d % 40) / 4 + k},1,${(d % 9) / 2},${k},0`,
        );
  const out = await importBefore(db.sql, org, lines.join('\n'));
  assert.is(out.code, 0, out.stderr);
  const before = await db.sql.unsafe(`select ${SPAN}, ${CREATIVE} from facts_spans s order by 1, 2, 3, 4, 5`);
  const spans = await db.sql`select count(distinct (ad_account_id, level, start, currency))::int as n from facts_spans`;
  assert.is(new Set(before.map((row) => `${row.account} ${row.currency}`)).size, 3, 'native and converted spans');

  await migrate(db.sql);
  const unpacked = `select ${SPAN}, ${CREATIVE} from (
      select s.level, s.currency, c.* from facts_spans s
      cross join lateral span_creatives(array[s.ad_account_id], s.level, s.start, s.start, s.currency) c
    ) s order by 1, 2, 3, 4, 5`;
  assert.equal(await db.sql.unsafe(unpacked), before);
  const [{ rows }] = await db.sql`select count(*)::int as rows from facts_spans`;
  assert.is(rows, spans[0].n, 'one row a span of an account in a currency');

  await db.sql`select rebuild_spans(array_agg(ad_account_id), array_agg(day), null, true)
    from (select distinct ad_account_id, day from facts) t`;
  assert.equal(await db.sql.unsafe(unpacked), before, 'a rebuild writes the same sums');
});

it.run();
