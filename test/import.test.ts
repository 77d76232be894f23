import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { runCommand } from '../src/cli/run.ts';
import { query } from '../src/store/queries.ts';
import fc from 'fast-check';
import { IMPORT_COLUMNS } from '../src/cli/importFile.ts';
import { CsvError, readCsv, readCsvStream } from '../src/cli/csv.ts';
import { parse } from 'csv-parse/sync';
import { testApp, type TestApp } from './support/app.ts';
import { onPostgres, processDatabase } from './support/database.ts';
import { createOrg } from './support/fixtures.ts';
import { FIXTURE_CSV, HEADER, importCsv } from './support/importFixture.ts';

const it = suite<{ t: TestApp; org: string }>('import and generate');
it.before(async (ctx) => {
  ctx.t = await testApp();
  ctx.org = await createOrg(ctx.t.db.sql);
});
it.after(async (ctx) => ctx.t.close());

const counts = async (t: TestApp) =>
  (
    await t.db
      .sql`select (select count(*) from facts)::int as facts, (select count(*) from ad_accounts)::int as accounts,
    (select count(*) from campaigns)::int as campaigns, (select count(*) from creatives)::int as creatives`
  )[0];

it('a good file loads accounts, campaigns, creatives and facts, names and all', async ({ t, org }) => {
  const out = await importCsv(t, org, FIXTURE_CSV);
  assert.is(out.code, 0, out.stderr);
  const printed = JSON.parse(out.stdout);
  assert.is(printed.rows, 6);
  // No rates are loaded: the EUR account's money cannot be converted yet, and the import says so
  // (docs/decisions.md §11).
  assert.equal(
    printed.warnings.map((w: string) => w.slice(0, 30)),
    ['EUR has no exchange rate but m'],
  );
  assert.match(out.stderr, /^readout: warning: EUR has no exchange rate/);
  const [campaign] = await t.db.sql`select name from campaigns where organization_id = ${org} and external_id = 'C1'`;
  assert.is(campaign.name, 'Alpha, "the" first');
  const fetched = await t.db
    .sql`select count(*)::int as n from ad_accounts where organization_id = ${org} and last_fetched_at is not null`;
  assert.is(fetched[0].n, 2, 'freshness marked');
});

it('importing a day again replaces its numbers rather than adding to them', async ({ t, org }) => {
  const again = [HEADER, '2026-01-05,google-ads,G1,Google US,USD,C2,Beta search,K2,Beta text,text,7,1,2,0,0,0,0'].join(
    '\n',
  );
  assert.is((await importCsv(t, org, again)).code, 0);
  const [row] = await t.db
    .sql`select f.impressions from facts f join creatives c on c.id = f.creative_id where c.external_id = 'K2' and f.day = '2026-01-05'`;
  assert.is(Number(row.impressions), 7);
});

it('a base metric column the file lacks, or an empty cell, is 0 (docs/decisions.md §5)', async ({ t }) => {
  const org = await createOrg(t.db.sql, { name: 'Fewer columns' });
  const file = [
    'date,platform,account_id,account_name,currency,campaign_id,campaign_name,creative_id,creative_name,format,clicks,spend',
    '2026-01-05,google-ads,G9,Google,USD,C9,Nine,K9,Nine text,text,12,',
  ].join('\n');
  const out = await importCsv(t, org, file);
  assert.is(out.code, 0, out.stderr);
  const [row] = await t.db.sql`select impressions, clicks, spend, conversions, video_completions from facts
    where organization_id = ${org}`;
  assert.equal(
    {
      ...row,
      impressions: Number(row.impressions),
      clicks: Number(row.clicks),
      video_completions: Number(row.video_completions),
    },
    { impressions: 0, clicks: 12, spend: 0, conversions: 0, video_completions: 0 },
  );
  const lacking = await importCsv(t, org, 'date,platform,account_id,clicks\n2026-01-05,google-ads,G9,1');
  assert.is(lacking.code, 2);
  assert.match(lacking.stderr, /lacks account_name, currency, campaign_id/);
});

it('a long import says on stderr what it is doing after reading the file, step by step; a short one stays quiet', async ({
  t,
}) => {
  const run = async (progressEvery: number | undefined) => {
    const lines: string[] = [];
    const out = await runCommand(['import', '--org', await createOrg(t.db.sql), '--file', 'facts.csv', '--json'], {
      sql: t.db.sql,
      now: t.clock.now,
      progress: (line) => lines.push(line),
      readStream: async function* () {
        yield new TextEncoder().encode(FIXTURE_CSV);
      },
      copy: onPostgres,
      progressEvery,
    });
    assert.is(out.code, 0, out.stderr);
    return lines;
  };
  // Shown at every piece of the file read (as a file read for longer than a second shows it every second).
  const shown = await run(0);
  const reading = shown.filter((line) => line.includes(' rows/s'));
  assert.ok(reading.length > 0, shown.join('\n'));
  assert.match(reading.at(-1)!, /^import: 6 rows read, [\d,]+ rows\/s$/);
  assert.equal(
    shown.slice(reading.length).map((line) => line.replace(/ in [\d.]+ s;/, ' in N s;')),
    [
      'import: 6 rows read in N s; writing accounts, campaigns, creatives and facts',
      'import: facts written in N s; summing them into the rollups',
      'import: rollups summed in N s; committing, then refreshing the statistics of the tables it grew',
    ],
  );
  assert.equal(await run(undefined), [], 'a file read in under a second shows nothing');
});

const badFiles: [string, string, RegExp][] = [
  ['a wrong header', 'date,platform\n2026-01-01,google-ads', /line 1: the header/],
  [
    'a bad date on line 3',
    `${HEADER}\n${FIXTURE_CSV.split('\n')[1]}\n2026-02-30${FIXTURE_CSV.split('\n')[1].slice(10)}`,
    /line 3: date/,
  ],
  ['an unknown platform', `${HEADER}\n2026-01-01,myspace,A,A,USD,C,C,K,K,image,1,1,1,0,0,0,0`, /line 2: platform/],
  ['a negative count', `${HEADER}\n2026-01-01,google-ads,A,A,USD,C,C,K,K,image,-1,1,1,0,0,0,0`, /line 2: impressions/],
  ['a missing field', `${HEADER}\n2026-01-01,google-ads,A,A,USD,C,C,K,K,image,1,1,1,0,0,0`, /line 2: has 16 fields/],
  [
    'an unclosed quote',
    `${HEADER}\n2026-01-01,google-ads,"A,A,USD,C,C,K,K,image,1,1,1,0,0,0,0`,
    /line 2: a quoted field/,
  ],
  [
    'one account in two currencies',
    `${HEADER}\n2026-01-01,google-ads,A,A,USD,C,C,K,K,image,1,1,1,0,0,0,0\n2026-01-02,google-ads,A,A,EUR,C,C,K,K,image,1,1,1,0,0,0,0`,
    /line 3: account A/,
  ],
  [
    'a currency that contradicts the existing account',
    `${HEADER}\n2026-03-01,meta-ads,M1,Meta EU,USD,C1,x,K1,x,video,1,1,1,0,0,0,0`,
    /line 2: the ad account meta-ads\/M1 \("Meta EU"\) is in EUR, not USD/,
  ],
  // PostgreSQL's text cannot hold a NUL: refused at COPY, the import waited for ever (porsager/postgres#1173).
  [
    'a NUL character in a name',
    `${HEADER}\n2026-01-01,google-ads,A,A\u0000B,USD,C,C,K,K,image,1,1,1,0,0,0,0`,
    /line 2: account_name holds a NUL character/,
  ],
  ['an empty file', '', /empty/],
  [
    'a file separated by semicolons',
    HEADER.replaceAll(',', ';'),
    /line 1: the header's names are separated by semicolons/,
  ],
  ['a file separated by tabs', HEADER.replaceAll(',', '\t'), /line 1: the header's names are separated by tabs/],
  ['a mistyped column', HEADER.replace('account_id', 'acount_id'), /"acount_id" \(did you mean account_id\?\)/],
];
for (const [what, csv, message] of badFiles) {
  it(`${what}: exit 2, the first bad line named, nothing written`, async ({ t, org }) => {
    const before = await counts(t);
    // A valid line follows the bad one (where there is one): it must not be written either.
    const later = csv ? '\n2027-01-01,google-ads,G9,Later,USD,C9,Later,K9,Later,image,1,1,1,0,0,0,0' : '';
    const out = await importCsv(t, org, csv + later);
    assert.is(out.code, 2, out.stdout);
    assert.match(out.stderr, message);
    assert.is(out.stderr.trim().split('\n').length, 1);
    assert.equal(await counts(t), before);
  });
}

it('a file that repeats what is loaded writes no fact, campaign or creative and rebuilds no rollup', async ({ t }) => {
  const org = await createOrg(t.db.sql);
  const sql = t.db.sql;
  assert.is((await importCsv(t, org, FIXTURE_CSV)).code, 0);
  const versions = () =>
    sql`select (select string_agg(xmin::text, ',' order by day, creative_id) from facts where organization_id = ${org}) as facts,
      (select string_agg(xmin::text, ',' order by month, creative_id) from facts_monthly where organization_id = ${org}) as months,
      (select string_agg(xmin::text, ',' order by id) from campaigns where organization_id = ${org}) as campaigns,
      (select string_agg(xmin::text, ',' order by id) from creatives where organization_id = ${org}) as creatives`;
  const before = await versions();
  const again = await importCsv(t, org, FIXTURE_CSV);
  assert.is(again.code, 0, again.stderr);
  assert.is(JSON.parse(again.stdout).rows, 6, 'every row of the file counted');
  assert.equal(await versions(), before);
});

const ROLLUPS = [
  'facts_monthly',
  'facts_campaign_monthly',
  'facts_campaign_daily',
  'facts_account_daily',
  'facts_monthly_converted',
  'facts_campaign_monthly_converted',
  'facts_campaign_daily_converted',
  'facts_account_daily_converted',
  'facts_spans',
  'facts_campaign_spans',
];
/** A table's rows of org; a span's creatives one row each (046), their order in its arrays aside. */
const rowsOf = (table: string) =>
  table === 'facts_spans'
    ? `select s.level, s.currency, c.* from facts_spans s
       cross join lateral span_creatives(array[s.ad_account_id], s.level, s.start, s.start, s.currency) c
       join ad_accounts a on a.id = s.ad_account_id where a.organization_id = $1`
    : `select * from ${table} where organization_id = $1`;
/** Each rollup's rows of org, one line of JSON a row, sorted. */
const rollupRows = (sql: TestApp['db']['sql'], org: string) =>
  Promise.all(
    ROLLUPS.map(async (table) => {
      const rows = await sql.unsafe(rowsOf(table), [org]);
      return rows
        .map((row) => JSON.stringify(row))
        .sort()
        .join('\n');
    }),
  );

/** rollupRows as a rebuild of every day of org's facts would leave them (rolled back after). */
const rebuiltRollupRows = (sql: TestApp['db']['sql'], org: string): Promise<string[]> =>
  sql
    .begin(async (tx) => {
      await tx`select rebuild_rollups(array_agg(ad_account_id), array_agg(day))
      from (select distinct ad_account_id, day from facts where organization_id = ${org}) f`;
      const rows = await rollupRows(tx as unknown as TestApp['db']['sql'], org);
      throw Object.assign(new Error('rolled back'), { rows });
    })
    .catch((error) => error.rows);

it('an import that restates some days and adds others leaves every rollup as a rebuild from facts would', async ({
  t,
}) => {
  const org = await createOrg(t.db.sql);
  const sql = t.db.sql;
  await sql`insert into fx_rates (currency, day, usd_per_unit) values ('EUR', '2026-01-01', 1.1), ('EUR', '2026-01-20', 1.2)
    on conflict do nothing`;
  assert.is((await importCsv(t, org, FIXTURE_CSV)).code, 0);
  // A report in EUR: the USD account's money is kept converted too (docs/decisions.md §11).
  const [report] = await sql`insert into reports (organization_id, name, kind, currency, metrics)
    values (${org}, 'EUR', 'standard', 'EUR', ${['spend']}) returning id`;
  await sql`insert into report_ad_accounts (organization_id, report_id, ad_account_id)
    select organization_id, ${report.id}, id from ad_accounts where organization_id = ${org}`;
  // Days restated and days added in the same months and in a new one, a loaded day and a new one each given twice
  // (the later line winning): new days are inserted plainly, loaded ones replaced (import-facts.sql).
  const restated = [
    HEADER,
    '2026-01-06,meta-ads,M1,Meta EU,EUR,C1,Alpha,K1,Alpha video,video,9,9,9,9,9,9,9',
    '2026-01-25,meta-ads,M1,Meta EU,EUR,C1,Alpha,K1,Alpha video,video,3,3,3,3,3,3,3',
    '2026-01-06,meta-ads,M1,Meta EU,EUR,C1,Alpha,K1,Alpha video,video,7,7,7,7,7,7,7',
    '2026-01-25,meta-ads,M1,Meta EU,EUR,C1,Alpha,K1,Alpha video,video,5,5,5,5,5,5,5',
    '2026-01-05,google-ads,G1,Google US,USD,C2,Beta search,K2,Beta text,text,1,1,1,1,1,0,0',
    '2026-03-01,google-ads,G1,Google US,USD,C3,Gamma search,K3,Gamma image,image,2,2,2,2,2,0,0',
  ].join('\n');
  const restatedOut = await importCsv(t, org, restated);
  assert.is(restatedOut.code, 0, restatedOut.stderr);
  const clicks = await sql`select f.day::text, f.clicks::int from facts f join creatives c on c.id = f.creative_id
    where c.organization_id = ${org} and c.external_id = 'K1' order by f.day`;
  assert.equal(
    clicks.map((r) => [r.day, r.clicks]),
    [
      ['2026-01-05', 50],
      ['2026-01-06', 7],
      ['2026-01-07', 50],
      ['2026-01-25', 5],
    ],
  );
  const imported = await rollupRows(sql, org);
  assert.ok(imported[0].length > 2 && imported[4].length > 2, 'native and converted rollups written');
  const rebuilt = await rebuiltRollupRows(sql, org);
  for (const [i, table] of ROLLUPS.entries()) assert.is(imported[i], rebuilt[i], table);
});

it("an import's update is taken as changed on its rows' days (044); any other update is paired old with new", async ({
  t,
}) => {
  const org = await createOrg(t.db.sql);
  assert.is((await importCsv(t, org, FIXTURE_CSV)).code, 0);
  const stamped = async () =>
    (
      await t.db.sql`select w.written_at from fact_writes w join ad_accounts a on a.id = w.ad_account_id
        where a.organization_id = ${org} and a.external_id = 'M1' and w.day = '2026-01-06'`
    )[0].written_at as Date;
  // The same numbers written again, once as any writer would and once as an import says its updates are.
  const sameNumbers = (asImport: boolean) =>
    t.db.sql.begin(async (tx) => {
      if (asImport) await query(tx, 'mark-updates-changing');
      await tx`update facts set clicks = clicks where organization_id = ${org} and day = '2026-01-06'`;
    });
  const loaded = await stamped();
  await sameNumbers(false);
  assert.equal(await stamped(), loaded, 'a plain update that changes nothing stamps nothing');
  await sameNumbers(true);
  assert.ok((await stamped()).getTime() > loaded.getTime(), "an import's update is not paired again");
});

/** A line of an import file, over a small world of ids so that keys, days and names repeat. */
const importLine = fc.record({
  day: fc.constantFrom('2026-01-05', '2026-01-06', '2026-01-07', '2026-02-01'),
  platform: fc.constantFrom('meta-ads', 'google-ads'),
  account: fc.constantFrom('A1', 'A2'),
  campaign: fc.constantFrom('C1', 'C2'),
  creative: fc.constantFrom('K1', 'K2'),
  name: fc.constantFrom('one', 'two', 'three, "quoted"', 'back\\slash\ttab\nline'),
  format: fc.constantFrom('image', 'video'),
  status: fc.constantFrom('active', 'paused'),
  clicks: fc.nat({ max: 1000 }),
});
type ImportLine = typeof importLine extends fc.Arbitrary<infer T> ? T : never;

/** What the files leave, by the documented rules: each key's last line wins, names and statuses from theirs too. */
function importModel(files: ImportLine[][]) {
  const facts = new Map<string, number>();
  const names = new Map<string, string>();
  for (const lines of files) {
    for (const l of lines) {
      const account = `${l.platform}/${l.account}`;
      const campaign = `${account}/${l.campaign}`;
      const creative = `${campaign}/${l.creative}`;
      facts.set(`${creative}@${l.day}`, l.clicks);
      names.set(`account ${account}`, `${l.name} a`);
      names.set(`campaign ${campaign}`, `${l.name} c ${l.status}`);
      names.set(`creative ${creative}`, `${l.name} k ${l.format}`);
    }
  }
  return { facts: [...facts].sort(), names: [...names].sort() };
}

/**
 * A file of the lines: with campaign_status after the numbers and every name quoted, or as a platform exports it,
 * the status among the names before the numbers and a name quoted only when it must be (the lines an import matches
 * to their creative's last without splitting them, importFile.ts stageKnown).
 */
const importText = (lines: ImportLine[], layout: 'quoted' | 'export' = 'quoted') => {
  const named = (name: string) =>
    layout === 'quoted' || /[",\n\r]/.test(name) ? `"${name.replace(/"/g, '""')}"` : name;
  const numbers = (l: ImportLine) => `1,${l.clicks},1,0,0,0,0`;
  const names = (l: ImportLine) =>
    `${l.platform},${l.account},${named(`${l.name} a`)},${l.account === 'A1' ? 'EUR' : 'USD'},` +
    `${l.campaign},${named(`${l.name} c`)},${l.creative},${named(`${l.name} k`)},${l.format}`;
  const header =
    layout === 'quoted' ? `${HEADER},campaign_status` : HEADER.replace(',impressions', ',campaign_status,impressions');
  const line = (l: ImportLine) =>
    layout === 'quoted'
      ? `${l.day},${names(l)},${numbers(l)},${l.status}`
      : `${l.day},${names(l)},${l.status},${numbers(l)}`;
  return [header, ...lines.map(line)].join('\n');
};

it('any files, in either layout, days repeated and out of order, creatives held or not: each key as its last line has it, counted once', async ({
  t,
}) => {
  const sql = t.db.sql;
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(importLine, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 2 }),
      // The default, or so few creatives held that the import puts them out of memory as it goes.
      fc.constantFrom(undefined, 1, 3),
      fc.constantFrom('quoted' as const, 'export' as const),
      async (files, creativesHeld, layout) => {
        const org = await createOrg(sql);
        for (const lines of files) {
          const out = await runCommand(['import', '--org', org, '--file', 'random.csv', '--json'], {
            sql,
            now: t.clock.now,
            progress: () => {},
            readStream: async function* () {
              yield new TextEncoder().encode(importText(lines, layout));
            },
            copy: onPostgres,
            creativesHeld,
          });
          assert.is(out.code, 0, out.stderr);
          const keys = new Set(lines.map((l) => `${l.platform}/${l.account}/${l.campaign}/${l.creative}@${l.day}`));
          assert.is(JSON.parse(out.stdout).rows, keys.size, 'each key and day counted once');
        }
        const facts = await sql`
        select a.platform || '/' || a.external_id || '/' || c.external_id || '/' || cr.external_id || '@' || f.day as key,
          f.clicks::int as clicks
        from facts f join ad_accounts a on a.id = f.ad_account_id join campaigns c on c.id = f.campaign_id
        join creatives cr on cr.id = f.creative_id where f.organization_id = ${org}`;
        const names = await sql`
        select 'account ' || platform || '/' || external_id as key, name from ad_accounts where organization_id = ${org}
        union all
        select 'campaign ' || a.platform || '/' || a.external_id || '/' || c.external_id, c.name || ' ' || c.status
        from campaigns c join ad_accounts a on a.id = c.ad_account_id where c.organization_id = ${org}
        union all
        select 'creative ' || a.platform || '/' || a.external_id || '/' || c.external_id || '/' || cr.external_id,
          cr.name || ' ' || cr.format
        from creatives cr join campaigns c on c.id = cr.campaign_id join ad_accounts a on a.id = c.ad_account_id
        where cr.organization_id = ${org}`;
        const model = importModel(files);
        assert.equal(facts.map((r) => [r.key, r.clicks]).sort(), model.facts);
        assert.equal(names.map((r) => [r.key, r.name]).sort(), model.names);
      },
    ),
    { numRuns: 40 },
  );
});

it("a platform's export: a line matched whole to its creative's last still sees a rename, a quote and a bad number", async ({
  t,
}) => {
  const org = await createOrg(t.db.sql);
  const line = (day: string, creative: string, name: string, clicks: number | string, campaign = 'Camp') =>
    `2026-01-${day},meta-ads,A1,Acct,EUR,C1,${campaign},${creative},${name},image,1,${clicks},1,0,0,0,0`;
  const file = [
    HEADER,
    line('05', 'K1', 'Old', 1),
    line('05', 'K2', 'Two', 2),
    line('06', 'K1', 'Old', 3),
    line('06', 'K2', 'Two', 4),
    line('07', 'K1', 'New', 5),
    line('07', 'K2', 'Two', 6),
    // K1 named as before its rename, on a day it already gave: the later line wins, name and number.
    line('07', 'K1', 'Old', 7),
    // The same fields, one quoted: its text is not its fields', so the next line is checked field by field.
    line('07', 'K2', 'Two', 8, '"Camp"'),
    line('07', 'K2', 'Two', 9),
  ];
  const out = await importCsv(t, org, file.join('\n'));
  assert.is(out.code, 0, out.stderr);
  assert.is(JSON.parse(out.stdout).rows, 6);
  const facts = await t.db.sql`select cr.external_id || '@' || f.day as key, cr.name, f.clicks::int as clicks
    from facts f join creatives cr on cr.id = f.creative_id where f.organization_id = ${org} order by 1`;
  assert.equal(
    facts.map((r) => [r.key, r.name, r.clicks]),
    [
      ['K1@2026-01-05', 'Old', 1],
      ['K1@2026-01-06', 'Old', 3],
      ['K1@2026-01-07', 'Old', 7],
      ['K2@2026-01-05', 'Two', 2],
      ['K2@2026-01-06', 'Two', 4],
      ['K2@2026-01-07', 'Two', 9],
    ],
  );
  const bad = await importCsv(t, org, [...file, line('07', 'K2', 'Two', '1.5')].join('\n'));
  assert.is(bad.code, 2);
  assert.match(bad.stderr, `--file: line ${file.length + 1}: clicks "1.5" must be a non-negative whole number`);
});

it('facts go in key order, a day by account: the rollups read an account-day from a few pages', async ({ t }) => {
  const org = await createOrg(t.db.sql);
  // A platform's export: a day at a time, its accounts' creatives interleaved line by line.
  const lines = [HEADER];
  for (const day of ['2026-03-02', '2026-03-01']) {
    for (let c = 0; c < 12; c++) {
      const account = `A${c % 3}`;
      lines.push(`${day},meta-ads,${account},Account,USD,C${c % 3},Campaign,K${c},Creative,image,10,1,1,0,0,0,0`);
    }
  }
  assert.is((await importCsv(t, org, lines.join('\n'))).code, 0);
  const stored = await t.db.sql`select f.ad_account_id, f.day::text as day, f.creative_id
    from facts f where f.organization_id = ${org} order by f.ctid`;
  // Lower-case UUIDs and ISO days sort as text as PostgreSQL sorts their values.
  const keys = stored.map((row) => `${row.ad_account_id} ${row.day} ${row.creative_id}`);
  assert.equal(keys, [...keys].sort());
});

it('an account, campaign or creative that facts name cannot be deleted from under them', async ({ t }) => {
  const org = await createOrg(t.db.sql);
  const sql = t.db.sql;
  assert.is((await importCsv(t, org, FIXTURE_CSV)).code, 0);
  const named = {
    creatives: sql`delete from creatives where organization_id = ${org} and external_id = 'K1'`,
    campaigns: sql`delete from campaigns where organization_id = ${org} and external_id = 'C3'`,
    ad_accounts: sql`delete from ad_accounts where organization_id = ${org} and external_id = 'G1'`,
  };
  for (const [table, statement] of Object.entries(named)) {
    const error = await statement.then(
      () => undefined,
      (failed) => failed,
    );
    assert.is(error?.code, '23503', `${table}: ${error?.message}`);
  }
  // Without facts naming it, a creative goes.
  await sql`delete from facts where organization_id = ${org} and creative_id in
    (select id from creatives where organization_id = ${org} and external_id = 'K3')`;
  await sql`delete from creatives where organization_id = ${org} and external_id = 'K3'`;
});

it('an unreadable file is a clear error', async ({ t, org }) => {
  const out = await runCommand(['import', '--org', org, '--file', '/nope.csv'], {
    sql: t.db.sql,
    now: t.clock.now,
    progress: () => {},
    readStream: async function* () {
      throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
    },
  });
  assert.is(out.code, 2);
  assert.match(out.stderr, /cannot read \/nope.csv \(ENOENT\)/);
});

it('columns in any order, and an optional campaign_status: set when given, kept when a later file has none', async ({
  t,
}) => {
  const org = await createOrg(t.db.sql, { name: 'Statuses' });
  const columns = ['campaign_status', ...[...IMPORT_COLUMNS].reverse()];
  const line = (values: Record<string, string>) => columns.map((c) => values[c] ?? values.default).join(',');
  const base = {
    date: '2026-01-05',
    platform: 'meta-ads',
    account_id: 'A1',
    account_name: 'A',
    currency: 'EUR',
    campaign_name: 'C',
    creative_id: 'K',
    creative_name: 'K',
    format: 'image',
    default: '1',
  };
  const csv = [
    columns.join(','),
    line({ ...base, campaign_id: 'P', campaign_status: 'paused' }),
    line({ ...base, campaign_id: 'R', campaign_status: 'archived' }),
    line({ ...base, campaign_id: 'Q', campaign_status: 'active' }),
  ].join('\n');
  const out = await importCsv(t, org, csv);
  assert.is(out.code, 0, out.stderr);
  const statuses = async () =>
    Object.fromEntries(
      (await t.db.sql`select external_id, status from campaigns where organization_id = ${org}`).map((c) => [
        c.external_id,
        c.status,
      ]),
    );
  assert.equal(await statuses(), { P: 'paused', R: 'archived', Q: 'active' });
  // Without the column a campaign keeps its status; a new one is active.
  const again = await importCsv(
    t,
    org,
    `${HEADER}\n2026-01-06,meta-ads,A1,A,EUR,P,C,K,K,image,1,1,1,0,0,0,0\n2026-01-06,meta-ads,A1,A,EUR,N,C,K,K,image,1,1,1,0,0,0,0`,
  );
  assert.is(again.code, 0, again.stderr);
  assert.equal(await statuses(), { P: 'paused', R: 'archived', Q: 'active', N: 'active' });
  const bad = await importCsv(
    t,
    org,
    [columns.join(','), line({ ...base, campaign_id: 'P', campaign_status: 'running' })].join('\n'),
  );
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /line 2: campaign_status "running" is not one of active, paused, archived/);
  assert.equal(await statuses(), { P: 'paused', R: 'archived', Q: 'active', N: 'active' });
  const unknown = await importCsv(t, org, `${HEADER},colour\n`);
  assert.match(unknown.stderr, /line 1: the header has unknown "colour"/);
});

it('a file read a chunk at a time: progress on stderr past a second, and the same rows', async ({ t }) => {
  const org = await createOrg(t.db.sql, { name: 'Slow' });
  const lines = Array.from(
    { length: 300 },
    (_, i) => `2026-01-05,meta-ads,A1,A,EUR,C${i},Ça ${i},K${i},K,image,1,1,1,0,0,0,0`,
  );
  const bytes = new TextEncoder().encode([HEADER, ...lines].join('\n'));
  const progress: string[] = [];
  const out = await runCommand(['import', '--org', org, '--file', 'slow.csv', '--json'], {
    sql: t.db.sql,
    now: t.clock.now,
    progress: (line) => progress.push(line),
    copy: onPostgres,
    // Chunks cut anywhere, inside a two-byte character included, with a pause past a second half-way.
    readStream: async function* () {
      for (let at = 0; at < bytes.length; at += 7) {
        if (at === 7 * 1000) await new Promise((resolve) => setTimeout(resolve, 1100));
        yield bytes.subarray(at, at + 7);
      }
    },
  });
  assert.is(out.code, 0, out.stderr);
  assert.is(JSON.parse(out.stdout).rows, 300);
  assert.ok(
    progress.some((line) => /^import: [\d,]+ rows read, [\d,]+ rows\/s$/.test(line)),
    progress.join('|'),
  );
  const [named] = await t.db
    .sql`select count(*)::int as n from campaigns where organization_id = ${org} and name like 'Ça %'`;
  assert.is(named.n, 300);
});

it('a real process reads standard input, gzip unpacked as it comes', async () => {
  const database = await processDatabase();
  const env = database.env;
  try {
    const [cmd, base] = ['node', ['--import', 'tsx', 'src/cli.ts']];
    const org = JSON.parse(
      spawnSync(cmd, [...base, 'org', 'create', '--name', 'Piped', '--json'], { env, encoding: 'utf8' }).stdout,
    ).organizationId;
    const out = spawnSync(cmd, [...base, 'import', '--org', org, '--file', '-', '--json'], {
      env,
      encoding: 'utf8',
      input: gzipSync(FIXTURE_CSV),
    });
    assert.is(out.status, 0, out.stderr);
    assert.is(JSON.parse(out.stdout).rows, FIXTURE_CSV.trim().split('\n').length - 1);
    const notGzip = spawnSync(cmd, [...base, 'import', '--org', org, '--file', 'x.csv.gz'], {
      env,
      encoding: 'utf8',
      cwd: process.cwd(),
    });
    assert.is(notGzip.status, 2);
    assert.match(notGzip.stderr, /cannot read x\.csv\.gz \(ENOENT\)/);
  } finally {
    await database.remove();
  }
});

it('generate makes synthetic data at scale with progress lines, and a re-run adds nothing twice', async ({ t }) => {
  const org = await createOrg(t.db.sql, { name: 'Synthetic' });
  const lines: string[] = [];
  const run = () =>
    runCommand(['generate', '--org', org, '--accounts', '2', '--campaigns', '5', '--days', '10', '--json'], {
      sql: t.db.sql,
      now: t.clock.now,
      progress: (line) => lines.push(line),
    });
  const out = await run();
  assert.is(out.code, 0, out.stderr);
  assert.equal(JSON.parse(out.stdout), { rows: 25 * 10 });
  assert.ok(
    lines.some((l) => /10\/10 days/.test(l)),
    lines.join('\n'),
  );
  const second = await run();
  assert.equal(JSON.parse(second.stdout), { rows: 0 });
  const [n] = await t.db.sql`select count(*)::int as accounts from ad_accounts where organization_id = ${org}`;
  assert.is(n.accounts, 2);
});

it('generate rebuilds its rollups once, after its last chunk of days, as a rebuild from facts would', async ({ t }) => {
  const sql = t.db.sql;
  const org = await createOrg(sql, { name: 'Chunked' });
  // A rebuild writes the campaigns' days in one statement: counted by a statement trigger for this test.
  await sql.unsafe(`
    create table generate_rebuilds (n int);
    create function count_generate_rebuild() returns trigger language plpgsql as
      $$ begin insert into generate_rebuilds values (1); return null; end $$;
    create trigger count_generate_rebuild after insert on facts_campaign_daily
      for each statement execute function count_generate_rebuild();`);
  try {
    const args = ['generate', '--org', org, '--accounts', '2', '--campaigns', '5', '--days', '10', '--json'];
    // 25 creatives, 25 facts a chunk: ten chunks of a day.
    const out = await runCommand(args, { sql, now: t.clock.now, progress: () => {}, generateChunkRows: 25 });
    assert.is(out.code, 0, out.stderr);
    assert.equal(JSON.parse(out.stdout), { rows: 250 });
    const [{ n }] = await sql`select count(*)::int as n from generate_rebuilds`;
    assert.is(n, 1, 'one rebuild for ten chunks');
  } finally {
    await sql.unsafe(`drop trigger count_generate_rebuild on facts_campaign_daily;
      drop function count_generate_rebuild(); drop table generate_rebuilds;`);
  }
  const generated = await rollupRows(sql, org);
  assert.ok(generated[0].length > 2 && generated[8].length > 2, 'rollups and spans written');
  const rebuilt = await rebuiltRollupRows(sql, org);
  // Money is summed in whatever order each rebuild reads the facts: equal to twelve significant digits.
  const digits = (rows: string) =>
    rows.replace(/-?\d+\.\d+(e[-+]?\d+)?/g, (n) => String(Number(Number(n).toPrecision(12))));
  for (const [i, table] of ROLLUPS.entries()) assert.is(digits(generated[i]), digits(rebuilt[i]), table);
});

it('generate --currencies puts the accounts in each currency in turn, and refuses a bad list', async ({ t }) => {
  const org = await createOrg(t.db.sql, { name: 'Several currencies' });
  const run = (currencies: string) =>
    runCommand(
      [
        'generate',
        '--org',
        org,
        '--accounts',
        '3',
        '--campaigns',
        '3',
        '--days',
        '2',
        '--currencies',
        currencies,
        '--json',
      ],
      { sql: t.db.sql, now: t.clock.now, progress: () => {} },
    );
  for (const [list, message] of [
    ['usd,EURO', /--currencies must list three-letter codes, got "EURO"/],
    ['USD,EUR,GBP,CHF', /more currencies than --accounts/],
  ] as const) {
    const bad = await run(list);
    assert.is(bad.code, 2);
    assert.match(bad.stderr, message);
  }
  assert.is(
    (await t.db.sql`select count(*)::int as n from ad_accounts where organization_id = ${org}`)[0].n,
    0,
    'nothing written',
  );
  const out = await run('usd,EUR');
  assert.is(out.code, 0, out.stderr);
  const accounts = await t.db.sql`select name, currency from ad_accounts where organization_id = ${org} order by name`;
  assert.equal(
    accounts.map((a) => a.currency),
    ['USD', 'EUR', 'USD'],
  );
});

it('account connection sets the status, and refuses an unknown one', async ({ t, org }) => {
  const [account] = await t.db.sql`select id from ad_accounts where organization_id = ${org} limit 1`;
  const run = (status: string) =>
    runCommand(['account', 'connection', '--account', account.id, '--status', status, '--json'], {
      sql: t.db.sql,
      now: 0,
      progress: () => {},
    });
  assert.equal(JSON.parse((await run('expired')).stdout), { adAccountId: account.id, connectionStatus: 'expired' });
  const bad = await run('broken');
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /--status/);
});

it('the CSV reader gives the same records however the bytes are cut into chunks', async () => {
  const field = fc
    .stringMatching(/^[a-zé€,"\n\r ]{0,6}$/)
    .map((v) => (/[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v));
  const file = fc.tuple(
    fc.array(fc.array(field, { minLength: 1, maxLength: 4 }), { maxLength: 6 }),
    fc.constantFrom('\n', '\r\n'),
    fc.boolean(),
  );
  await fc.assert(
    fc.asyncProperty(
      file,
      fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 20 }),
      async ([rows, eol, last], cuts) => {
        const text = rows.map((r) => r.join(',')).join(eol) + (last ? eol : '');
        const bytes = new TextEncoder().encode(text);
        const whole = (() => {
          try {
            return [...readCsv(text)];
          } catch (error) {
            return (error as Error).message;
          }
        })();
        const chunked = await (async () => {
          const out = [];
          try {
            let at = 0;
            let n = 0;
            const chunks = async function* () {
              while (at < bytes.length) yield bytes.subarray(at, (at += cuts[n++ % cuts.length]));
            };
            for await (const record of readCsvStream(chunks())) out.push(record);
            return out;
          } catch (error) {
            return (error as Error).message;
          }
        })();
        assert.equal(chunked, whole);
        // The records are csv-parse's own, each numbered by the line it starts on.
        if (typeof whole !== 'string') {
          assert.equal(
            whole.map((r) => r.fields),
            parse(text, { skip_empty_lines: true, relax_column_count: true }),
          );
          const starts = whole.map((r, i) =>
            i === 0 ? r.line : r.line - whole[i - 1].line - (whole[i - 1].fields.join().match(/\n/g)?.length ?? 0),
          );
          assert.ok(
            starts.every((step) => step >= 1),
            JSON.stringify(whole),
          );
          const lines = text.split(/\r?\n/);
          for (const r of whole)
            assert.ok(
              lines[r.line - 1].startsWith(r.fields[0].split(/\r?\n/)[0]) ||
                r.fields[0].length === 0 ||
                lines[r.line - 1].startsWith('"'),
              `${JSON.stringify(text)} ${JSON.stringify(r)}`,
            );
        }
      },
    ),
    { numRuns: 300 },
  );
});

it('the CSV reader agrees with csv-parse on any lines, stray quotes included: the same records, or both refuse', () => {
  const lines = fc.array(fc.stringMatching(/^[a",\n é]{0,8}$/), { maxLength: 5 });
  fc.assert(
    fc.property(lines, fc.constantFrom('\n', '\r\n'), (parts, eol) => {
      const text = parts.join('\n').replaceAll('\n', eol);
      const ours = (() => {
        try {
          return [...readCsv(text)].map((r) => r.fields);
        } catch (error) {
          assert.instance(error, CsvError);
          return 'refused';
        }
      })();
      const theirs = (() => {
        try {
          return parse(text, { skip_empty_lines: true, relax_column_count: true }) as string[][];
        } catch {
          return 'refused';
        }
      })();
      assert.equal(ours, theirs, JSON.stringify(text));
    }),
    { numRuns: 3000 },
  );
});

it('bytes that are not UTF-8 are refused on the line that holds them', async () => {
  const bytes = new Uint8Array([...new TextEncoder().encode('a,b\n1,2\n3,'), 0xff, 0x0a]);
  const error = await (async () => {
    try {
      for await (const _ of readCsvStream([bytes]));
    } catch (error) {
      return error as CsvError;
    }
  })();
  assert.instance(error, CsvError);
  assert.is(error?.line, 3);
  assert.match(error?.message ?? '', /not UTF-8/);
});

it('a runaway quote is refused at the record cap and the file is not read further', async () => {
  let read = 0;
  let closed = false;
  const chunks = async function* () {
    try {
      yield new TextEncoder().encode('a,b\n1,2\n3,"never closed');
      const filler = new Uint8Array(1 << 16).fill(0x78);
      for (let i = 0; i < 1000; i++, read++) yield filler;
    } finally {
      closed = true;
    }
  };
  const error = await (async () => {
    try {
      for await (const _ of readCsvStream(chunks()));
    } catch (error) {
      return error as Error & { line: number };
    }
  })();
  assert.is(error?.line, 3);
  assert.match(error?.message ?? '', /a record is longer than 1048576 bytes/);
  assert.ok(read < 40, `read ${read} chunks of 64 KB`);
  assert.ok(closed);
});

it.run();
