// Writers at once (docs/decisions.md §14): imports, rate imports, an apply that changes a report's currency and plain
// SQL on the facts take the writers' lock before any row, so none of them can deadlock another; one that must wait
// waits, and every grouping then equals a per-day reference worked out here in SQL from the facts and the rates.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import postgres from 'postgres';
import { runCommand } from '../src/cli/run.ts';
import type { Sql } from '../src/store/database.ts';
import { testApp, type TestApp } from './support/app.ts';
import { onPostgres } from './support/database.ts';
import { bearer, createClient, createOrg, getToken } from './support/fixtures.ts';
import { HEADER, importCsv } from './support/importFixture.ts';
import { skipped } from './support/skip.ts';

const it = suite('concurrent writers');
const WHY = 'needs PostgreSQL (TEST_DATABASE_URL): the embedded database runs one transaction at a time';
const DAYS = ['2026-01-05', '2026-01-06', '2026-01-07', '2026-02-10', '2026-02-11'];

/** Facts for a EUR and a USD account over DAYS, with numbers that change with `seed` (a restatement). */
function factsCsv(seed: number) {
  const lines = [HEADER];
  for (const [n, day] of DAYS.entries()) {
    const v = seed * 7 + n;
    lines.push(
      `${day},meta-ads,M1,Meta EU,EUR,C1,Alpha,K1,Alpha video,video,${1000 + v},${50 + v},${100 + v}.5,5,200,4,1`,
    );
    lines.push(
      `${day},google-ads,G1,Google US,USD,C2,Beta,K2,Beta text,text,${3000 + v},${30 + v},${60 + v}.25,0,0,0,0`,
    );
  }
  return lines.join('\n');
}

const ratesCsv = (seed: number) =>
  ['date,currency,usd_per_unit', `2026-01-01,EUR,${(1 + (seed % 9) / 100).toFixed(2)}`, '2026-02-01,EUR,1.25'].join(
    '\n',
  );

const configYaml = (currency: string) =>
  [
    'reports:',
    '  - name: Mixed',
    '    kind: standard',
    `    currency: ${currency}`,
    '    adAccounts: [meta-ads/M1, google-ads/G1]',
    '    metrics: [impressions, clicks, spend, cpc]',
    '    groupings: [total, campaign, month, ad-account, creative]',
  ].join('\n');

async function command(t: TestApp, sql: Sql, argv: string[], file = '') {
  return runCommand([...argv, '--json'], {
    sql,
    now: t.clock.now,
    progress: () => {},
    readText: async () => file,
    readStream: async function* () {
      yield new TextEncoder().encode(file);
    },
    copy: true,
  });
}

/**
 * The report's numbers by grouping, worked out from facts and rates a day at a time: a day's money is converted at
 * the latest rate on or before it (through USD), and a row holding money without a rate has null money.
 */
async function reference(sql: Sql, org: string, currency: string, group: string) {
  const key: Record<string, string> = {
    total: `'total'`,
    campaign: 'f.campaign_id::text',
    'ad-account': 'f.ad_account_id::text',
    creative: 'f.creative_id::text',
    month: `to_char(f.day, 'YYYY-MM')`,
  };
  const rate = (c: string) =>
    `(case when ${c} = 'USD' then 1 else (select r.usd_per_unit from fx_rates r where r.currency = ${c} and r.day <= f.day order by r.day desc limit 1) end)`;
  const rows = await sql.unsafe(
    `select ${key[group]} as key, sum(f.clicks)::int as clicks,
            case when bool_and(x.factor is not null) then sum(f.spend * x.factor) end as spend
     from facts f join ad_accounts a on a.id = f.ad_account_id
     cross join lateral (select case when a.currency = $2 then 1 else ${rate('a.currency')} / ${rate('$2')} end as factor) x
     where f.organization_id = $1 group by 1`,
    [org, currency],
  );
  return new Map(rows.map((r) => [r.key as string, { clicks: r.clicks as number, spend: r.spend as number | null }]));
}

/** Every grouping of the report, as answered, against the reference. */
async function assertGroupings(t: TestApp, org: string, token: string) {
  const [report] = await t.db.sql`select id, currency from reports where organization_id = ${org}`;
  for (const group of ['total', 'campaign', 'ad-account', 'creative', 'month']) {
    const res = await t.fetch(
      `/v1/reports/${report.id}/data?groupBy=${group}&dateFrom=2026-01-01&dateTo=2026-02-28&metrics=clicks,spend`,
      bearer(token),
    );
    assert.is(res.status, 200, `${group}: ${res.status}`);
    const body = await res.json();
    const want = await reference(t.db.sql, org, report.currency, group);
    assert.is(body.rows.length, want.size, `${group}: rows`);
    for (const row of body.rows) {
      const dims = row.dimensions ?? row;
      const id =
        group === 'total'
          ? 'total'
          : group === 'month'
            ? dims.month
            : group === 'campaign'
              ? dims.campaignId
              : group === 'creative'
                ? dims.creativeId
                : dims.adAccountId;
      const expected = want.get(id);
      assert.ok(expected, `${group}: unexpected row ${id}`);
      assert.is(row.metrics.clicks, expected!.clicks, `${group} ${id}: clicks`);
      if (expected!.spend === null) assert.is(row.metrics.spend, null, `${group} ${id}: spend`);
      else
        assert.ok(Math.abs(row.metrics.spend - expected!.spend) < 1e-6, `${group} ${id}: spend ${row.metrics.spend}`);
    }
  }
}

/** An organization with both accounts, EUR rates and a EUR report; its token. */
async function setUp(t: TestApp) {
  const org = await createOrg(t.db.sql, { currency: 'USD' });
  const loaded = await importCsv(t, org, factsCsv(0));
  assert.is(loaded.code, 0, loaded.stderr);
  assert.is((await command(t, t.db.sql, ['fx', 'import', '--file', 'rates.csv'], ratesCsv(0))).code, 0);
  const applied = await command(t, t.db.sql, ['apply', '--org', org, '--file', 'readout.yaml'], configYaml('EUR'));
  assert.is(applied.code, 0, applied.stderr);
  const token = await getToken(t, await createClient(t.db.sql, org));
  return { org, token };
}

/** Waits until `count` other sessions of this database wait for a lock. */
async function waiters(sql: Sql, count: number) {
  const end = Date.now() + 10_000;
  for (;;) {
    const [row] =
      await sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
    if (row.n >= count) return;
    if (Date.now() > end) {
      const sessions = await sql`select state, wait_event_type, wait_event, left(query, 80) as query
        from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
      throw new Error(`timed out waiting for ${count} writers to wait; sessions: ${JSON.stringify(sessions)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

it('a rate import and an import queued behind a held fact update both finish once it commits', async () => {
  if (skipped(!onPostgres, 'concurrent writers', 'queued behind a held update', WHY)) return;
  const t = await testApp({ max: 8 });
  const held = postgres(t.db.url, { max: 1, onnotice: () => {} });
  // Released in `finally` too: a failed step must fail the test, not leave the held transaction (and the run) waiting.
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  try {
    const { org, token } = await setUp(t);
    // An ordinary fact update that changes nothing, held open: it holds what every fact writer takes.
    const holding = held.begin(async (tx) => {
      await tx`update facts set clicks = clicks where organization_id = ${org} and day = '2026-01-05'`;
      await released;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const rates = command(t, t.db.sql, ['fx', 'import', '--file', 'rates.csv'], ratesCsv(3));
    await waiters(t.db.sql, 1);
    const restated = importCsv(t, org, factsCsv(1));
    await waiters(t.db.sql, 2);
    release();
    await holding;
    const [r, i] = await Promise.all([rates, restated]);
    assert.is(r.code, 0, r.stderr);
    assert.is(i.code, 0, i.stderr);
    await assertGroupings(t, org, token);
  } finally {
    release();
    await held.end();
    await t.close();
  }
});

it('importers, a rate importer, a currency-flipping apply, generate, org delete and held SQL updates at once: every write exits 0', async () => {
  if (skipped(!onPostgres, 'concurrent writers', 'every write exits 0', WHY)) return;
  const t = await testApp({ max: 10 });
  const held = postgres(t.db.url, { max: 1, onnotice: () => {} });
  try {
    const { org, token } = await setUp(t);
    const until = Date.now() + 8_000;
    const failures: string[] = [];
    let writes = 0;
    const loop = async (name: string, write: (n: number) => Promise<{ code: number; stderr: string }>) => {
      for (let n = 1; Date.now() < until && n <= 200; n++) {
        const out = await write(n).catch((error) => ({ code: 1, stderr: String(error) }));
        writes++;
        if (out.code !== 0) failures.push(`${name} #${n}: ${out.stderr.trim()}`);
      }
    };
    await Promise.all([
      loop('import A', (n) => importCsv(t, org, factsCsv(n))),
      loop('import B', (n) => importCsv(t, org, factsCsv(n + 100))),
      loop('fx import', (n) => command(t, t.db.sql, ['fx', 'import', '--file', 'rates.csv'], ratesCsv(n))),
      loop('apply', (n) =>
        command(t, t.db.sql, ['apply', '--org', org, '--file', 'readout.yaml'], configYaml(n % 2 ? 'USD' : 'EUR')),
      ),
      loop('generate, then org delete', async () => {
        const other = await createOrg(t.db.sql, { name: 'Scratch' });
        const made = await command(t, t.db.sql, [
          'generate',
          '--org',
          other,
          '--accounts',
          '2',
          '--campaigns',
          '2',
          '--days',
          '40',
        ]);
        if (made.code !== 0) return made;
        return command(t, t.db.sql, ['org', 'delete', '--org', other, '--yes']);
      }),
      loop('held update', async (n) => {
        await held.begin(async (tx) => {
          await tx`update facts set clicks = clicks + ${n % 2 ? 1 : -1} where organization_id = ${org} and day = '2026-01-06'`;
          await new Promise((resolve) => setTimeout(resolve, 150));
        });
        return { code: 0, stderr: '' };
      }),
    ]);
    assert.equal(failures, [], failures.join('\n'));
    assert.ok(writes > 20, `only ${writes} writes ran`);
    process.stdout.write(`  ${writes} writes, none failed\n`);
    await assertGroupings(t, org, token);
  } finally {
    await held.end();
    await t.close();
  }
});

it.run();
