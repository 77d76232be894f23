// The planner's statistics after each command that loads data (issue: the first report after a load must be as fast
// as the tenth): the tables a command changed are analysed before it returns, so PostgreSQL's idea of their size is
// what is there. (PGlite has no autovacuum, and a real server's runs only now and then.)
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCommand } from '../src/cli/run.ts';
import { testApp, type TestApp } from './support/app.ts';
import { createOrg } from './support/fixtures.ts';
import { BASE_METRICS } from '../src/report/metrics.ts';
import { FIXTURE_CSV, HEADER, importCsv } from './support/importFixture.ts';

const it = suite<{ t: TestApp }>('statistics after a load');
it.before(async (ctx) => {
  ctx.t = await testApp();
});
it.after(async (ctx) => ctx.t.close());

/** A table's planner row estimate (pg_class.reltuples, -1 before any analyze) and the rows it holds. */
async function estimated(t: TestApp, table: string): Promise<{ estimate: number; rows: number }> {
  const [row] = await t.db.sql.unsafe(
    `select (select reltuples from pg_class where oid = '${table}'::regclass)::int as estimate, (select count(*)::int from ${table}) as rows`,
  );
  return { estimate: row.estimate, rows: row.rows };
}

/** Tables whose planner row estimate is not their row count. */
async function stale(t: TestApp, tables: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const table of tables) {
    const { estimate, rows } = await estimated(t, table);
    if (estimate !== rows) out.push(`${table}: planner thinks ${estimate}, holds ${rows}`);
  }
  return out;
}

const run = (t: TestApp, argv: string[], text = '') =>
  runCommand([...argv, '--json'], { sql: t.db.sql, now: t.clock.now, progress: () => {}, readText: async () => text });

/** `readout generate` of accounts, campaigns, creatives and days for org. */
const generate = (t: TestApp, org: string, [accounts, campaigns, creatives, days]: number[]) =>
  run(
    t,
    ['generate', '--org', org, '--accounts', `${accounts}`, '--campaigns', `${campaigns}`].concat([
      '--creatives',
      `${creatives}`,
      '--days',
      `${days}`,
    ]),
  );

const FACTS = [
  'facts',
  'facts_monthly',
  'facts_campaign_daily',
  'facts_campaign_monthly',
  'facts_monthly_converted',
  'facts_campaign_daily_converted',
  'facts_campaign_monthly_converted',
  'facts_spans',
  'facts_campaign_spans',
];

it('import, generate, fx import, apply and org delete each leave the tables they changed analysed', async ({ t }) => {
  const org = await createOrg(t.db.sql);
  const imported = await importCsv(t, org, FIXTURE_CSV);
  assert.is(imported.code, 0, imported.stderr);
  assert.equal(await stale(t, FACTS.slice(0, 4)), [], 'after import');

  const applied = await run(
    t,
    ['apply', '--org', org, '--file', 'r.yaml'],
    JSON.stringify({
      reports: [
        {
          name: 'In GBP',
          kind: 'standard',
          currency: 'GBP',
          adAccounts: ['meta-ads/M1', 'google-ads/G1'],
          metrics: ['spend'],
          groupings: ['total'],
        },
      ],
    }),
  );
  assert.is(applied.code, 0, applied.stderr);
  assert.equal(
    await stale(t, ['reports', 'report_ad_accounts', 'converted_currencies', 'facts_monthly_converted']),
    [],
    'after apply',
  );

  const rates = await run(
    t,
    ['fx', 'import', '--file', 'r.csv'],
    'date,currency,usd_per_unit\n2026-01-01,EUR,1.1\n2026-01-01,GBP,1.3\n2026-01-02,GBP,1.31\n',
  );
  assert.is(rates.code, 0, rates.stderr);
  assert.equal(
    await stale(t, ['fx_rates', 'facts_monthly_converted', 'facts_campaign_monthly_converted', 'facts_spans']),
    [],
    'after fx import',
  );

  const other = await createOrg(t.db.sql, { name: 'Generated' });
  const generated = await generate(t, other, [2, 4, 8, 40]);
  assert.is(generated.code, 0, generated.stderr);
  assert.equal(await stale(t, FACTS), [], 'after generate');

  const deleted = await run(t, ['org', 'delete', '--org', other, '--yes']);
  assert.is(deleted.code, 0, deleted.stderr);
  assert.equal(await stale(t, FACTS), [], 'after org delete');
});

it("a load gathers the statistics the planner reads, not the base metrics' it never does", async ({ t }) => {
  const org = await createOrg(t.db.sql, { name: 'Statistics' });
  const generated = await generate(t, org, [2, 4, 8, 40]);
  assert.is(generated.code, 0, generated.stderr);
  const gathered = await t.db.sql<{ table: string; column: string }[]>`
    select tablename as table, attname as column from pg_stats
    where schemaname = 'public' and tablename = any(${FACTS})`;
  const of = (table: string) => gathered.filter((s) => s.table === table).map((s) => s.column);
  for (const table of FACTS) {
    assert.ok(of(table).includes('ad_account_id'), `${table}: its accounts' statistics gathered`);
    const metrics = of(table).filter((column) => (BASE_METRICS as readonly string[]).includes(column));
    assert.equal(metrics, [], `${table}: no base metric's statistics`);
  }
  const refused = await t.db.sql`select analyze_fact_table('organizations')`.then(
    () => '',
    (error: Error) => error.message,
  );
  assert.match(refused, /not one of the facts' tables/);
});

it('a load that grows a large table by less than a tenth leaves it to later: it grows on until one does', async ({
  t,
}) => {
  const org = await createOrg(t.db.sql, { name: 'Daily loads' });
  const generated = await generate(t, org, [2, 4, 100, 100]);
  assert.is(generated.code, 0, generated.stderr);
  const [{ pages }] = await t.db.sql`select relpages as pages from pg_class where oid = 'facts'::regclass`;
  assert.ok(pages >= 128, `facts take a megabyte or more, past what is analysed whatever the load: ${pages} pages`);
  const analysed = await estimated(t, 'facts');
  assert.is(analysed.estimate, analysed.rows, 'a large load is analysed');
  // Days of a creative of its own, a fortieth of the facts at a time.
  const day = (n: number) => new Date(Date.UTC(2026, 0, 1 + n)).toISOString().slice(0, 10);
  const small = Math.floor(analysed.rows / 40);
  const load = (from: number) =>
    importCsv(
      t,
      org,
      [
        HEADER,
        ...Array.from(
          { length: small },
          (_, i) =>
            `${day(from + i)},meta-ads,D1,Daily,USD,DC1,Daily campaign,DK1,Daily creative,image,100,1,1,0,0,0,0`,
        ),
      ].join('\n'),
    );
  const first = await load(0);
  assert.is(first.code, 0, first.stderr);
  assert.equal(await estimated(t, 'facts'), { estimate: analysed.estimate, rows: analysed.rows + small }, 'kept');
  const again = await load(0);
  assert.is(again.code, 0, again.stderr);
  assert.equal(await estimated(t, 'facts'), { estimate: analysed.estimate, rows: analysed.rows + small }, 'unchanged');
  // Seven more such loads, a fifth in all: analysed on the way.
  for (let n = 1; n <= 7; n++) assert.is((await load(n * small)).code, 0);
  const after = await estimated(t, 'facts');
  assert.is(after.rows, analysed.rows + 8 * small);
  assert.ok(after.estimate > analysed.estimate, `analysed once it grew: ${JSON.stringify(after)}`);
});

type PlanNode = {
  'Node Type': string;
  'Relation Name'?: string;
  'Plan Rows': number;
  'Actual Rows': number;
  Plans?: PlanNode[];
};

/** Each join directly above a scan of `table`: what the planner expected of it, and what it gave, a loop. */
function joinsOver(node: PlanNode, table: string, out: { expected: number; actual: number }[] = []) {
  for (const child of node.Plans ?? []) {
    if (child['Relation Name'] === table) out.push({ expected: node['Plan Rows'], actual: node['Actual Rows'] });
    joinsOver(child, table, out);
  }
  return out;
}

it('a span read is planned for at least the rows it reads: far fewer made PostgreSQL sort 100,000 to disk', async ({
  t,
}) => {
  const org = await createOrg(t.db.sql, { name: 'Spans' });
  const generated = await generate(t, org, [4, 40, 400, 100]);
  assert.is(generated.code, 0, generated.stderr);
  const [{ accounts, from, to }] = await t.db.sql`
    select array_agg(distinct ad_account_id) as accounts, min(day)::text as "from", max(day)::text as "to"
    from facts where organization_id = ${org}`;
  for (const [fn, table] of [
    ['report_creative_spans', 'facts_spans'],
    ['report_campaign_spans', 'facts_campaign_spans'],
  ]) {
    const [row] = await t.db.sql.unsafe(`explain (analyze, format json) select * from ${fn}($1, null, $2, $3, 'USD')`, [
      accounts,
      from,
      to,
    ] as never[]);
    const plan = (Object.values(row)[0] as [{ Plan: PlanNode }])[0].Plan;
    const joins = joinsOver(plan, table);
    assert.ok(joins.length > 0, `${fn} reads ${table}`);
    // Filtered after the read, the accounts' test made PostgreSQL expect a twentieth of these rows.
    for (const { expected, actual } of joins)
      assert.ok(expected >= actual, `${fn}: expected ${expected} rows of ${table}, read ${actual}`);
  }
});

it('a month rollup is rebuilt by hashing its creatives: guessing one fact a month, PostgreSQL sorted a load to disk', async ({
  t,
}) => {
  // A SQL function's statements are planned inside it, out of EXPLAIN's reach: the setting is what plans them.
  const [{ config }] = await t.db.sql`select proconfig as config from pg_proc where proname = 'rebuild_facts_monthly'`;
  assert.ok((config ?? []).includes('enable_sort=off'), String(config));
});

it("a load's campaign days and converted months are summed by hashing, in memory: PostgreSQL sorted them on disk", async ({
  t,
}) => {
  // Planned inside the load's transaction from the statistics of before it (migration 038).
  const rows = await t.db.sql`select proname, proconfig as config from pg_proc
    where proname in ('rebuild_facts_campaign_daily', 'rebuild_converted_rollups', 'rebuild_rollups') order by proname`;
  const wanted: Record<string, string> = {
    rebuild_converted_rollups: 'enable_sort=off',
    rebuild_facts_campaign_daily: 'enable_sort=off',
    rebuild_rollups: 'work_mem=64MB',
  };
  assert.is(rows.length, 3);
  for (const { proname, config } of rows) assert.ok((config ?? []).includes(wanted[proname]), `${proname}: ${config}`);
});

it('the rollup rebuilds plan every statement anew: plans kept from a small load made a large one four times slower', async ({
  t,
}) => {
  // PL/pgSQL keeps a statement's plan for the session after five runs; the embedded database is one session.
  const rows = await t.db.sql`select proname, proconfig as config from pg_proc
    where proname in ('rebuild_spans', 'rebuild_rollups', 'rebuild_deferred_rollups') order by proname`;
  assert.is(rows.length, 3);
  for (const { proname, config } of rows)
    assert.ok((config ?? []).includes('plan_cache_mode=force_custom_plan'), `${proname}: ${config}`);
});

it.run();
