// Exchange rates an operator loads (docs/decisions.md §5, §11): the ECB's files as published, a long CSV, conversion at
// each day's rate (the latest earlier one on a day without), and money that cannot be converted is null, never a
// partial sum.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCommand } from '../src/cli/run.ts';
import { parseRates, RatesError } from '../src/cli/rates.ts';
import { testApp, type TestApp } from './support/app.ts';
import { bearer, createClient, createOrg, getToken } from './support/fixtures.ts';
import { HEADER, importCsv } from './support/importFixture.ts';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { freshDatabaseUrl, onPostgres } from './support/database.ts';
import { command, temporaryDir } from './support/server.ts';

const ECB_HISTORY = [
  'Date,USD,JPY,CHF,GBP,CYP,',
  '2026-01-09,1.1600,180.10,0.9300,0.8650,N/A,',
  '2026-01-05,1.1000,170.00,0.9500,0.8500,N/A,',
  '2026-01-06,1.1200,171.00,0.9400,0.8600,N/A,',
].join('\n');

const ECB_DAILY = 'Date, USD, JPY, CHF, GBP, \n07 January 2026, 1.1300, 172.00, 0.9350, 0.8620, \n';

const rate = (rates: ReturnType<typeof parseRates>, currency: string, day: string) =>
  rates.find((r) => r.currency === currency && r.day === day)?.usdPerUnit;

const parse = suite('rate files');

parse(
  'the ECB history file as published: N/A cells, a trailing comma, dates in any order; USD per unit through USD per EUR',
  () => {
    const rates = parseRates(ECB_HISTORY);
    assert.is(rate(rates, 'EUR', '2026-01-05'), 1.1);
    assert.ok(Math.abs(rate(rates, 'CHF', '2026-01-05')! - 1.1 / 0.95) < 1e-12);
    assert.ok(Math.abs(rate(rates, 'JPY', '2026-01-09')! - 1.16 / 180.1) < 1e-15);
    assert.is(rate(rates, 'CYP', '2026-01-05'), undefined, 'N/A is no rate');
    assert.is(rate(rates, 'USD', '2026-01-05'), undefined, 'USD is 1 by definition, not stored');
    assert.is(rates.length, 3 * 4);
  },
);

parse('the ECB daily file: spaces after commas and a spelled-out date', () => {
  const rates = parseRates(ECB_DAILY);
  assert.is(rate(rates, 'EUR', '2026-01-07'), 1.13);
  assert.ok(Math.abs(rate(rates, 'GBP', '2026-01-07')! - 1.13 / 0.862) < 1e-12);
});

parse('a long CSV of date,currency,usd_per_unit', () => {
  const rates = parseRates('date,currency,usd_per_unit\n2026-01-05,CHF,1.15\n2026-01-05,USD,1\n');
  assert.equal(rates, [{ currency: 'CHF', day: '2026-01-05', usdPerUnit: 1.15 }]);
});

parse('the first bad line is named', () => {
  for (const [text, message] of [
    ['Date,USD,CHF\n2026-01-05,1.1,0.9\n2026-02-30,1.1,0.9\n', /line 3: "2026-02-30" is not a date/],
    ['Date,USD,CHF\n2026-01-05,1.1,-0.9\n', /line 2: CHF "-0.9" is not a positive number/],
    ['Date,USD,CHF\n2026-01-05,1.1\n', /line 2: has 2 fields/],
    ['Date,JPY\n2026-01-05,170\n', /no USD column/],
    ['date,currency,usd_per_unit\n2026-01-05,chf,1.1\n', /line 2: currency "chf"/],
    [
      'date,currency,usd_per_unit\n2026-01-05,CHF,1.1\n2026-01-05,CHF,1.2\n',
      /line 3: CHF on 2026-01-05 is given twice \(line 2\)/,
    ],
    ['day,rate\n2026-01-05,1\n', /line 1: the header/],
  ] as const) {
    assert.throws(
      () => parseRates(text),
      (error: Error) => error instanceof RatesError && message.test(error.message),
      text,
    );
  }
});

parse.run();

// ---

// Rates are shared by every organization, so each test has a database of its own.
const it = suite('conversion');
const withApp = (fn: (t: TestApp) => Promise<void>) => async () => {
  const t = await testApp({ env: { TOKEN_TTL_S: '86400' } });
  try {
    await fn(t);
  } finally {
    await t.close();
  }
};

const fx = (t: TestApp, args: string[], text = '') =>
  runCommand(['fx', ...args, '--json'], {
    sql: t.db.sql,
    now: t.clock.now,
    progress: () => {},
    readText: async () => text,
  });

/** An organization whose EUR report reads accounts in EUR, CHF and USD over 2026-01-09 (Friday) to 01-11 (Sunday). */
async function threeCurrencies(t: TestApp) {
  const org = await createOrg(t.db.sql, { currency: 'EUR' });
  const csv = [
    HEADER,
    '2026-01-09,meta-ads,E1,Euro account,EUR,CE,Euro campaign,KE,Euro creative,image,1000,100,360.5,0,0,0,0',
    '2026-01-10,google-ads,U1,Dollar account,USD,CU,Dollar campaign,KU,Dollar creative,image,1000,50,430,0,0,0,0',
    '2026-01-11,linkedin-ads,C1,Franc account,CHF,CC,Franc campaign,KC,Franc creative,image,1000,10,100,0,0,0,0',
  ].join('\n');
  const out = await importCsv(t, org, csv);
  assert.is(out.code, 0, out.stderr);
  const warned = JSON.parse(out.stdout).warnings as string[];
  const accounts = await t.db.sql`select id, currency from ad_accounts where organization_id = ${org}`;
  const [report] = await t.db.sql`insert into reports (organization_id, name, kind, currency, metrics, groupings)
    values (${org}, 'Europe', 'standard', 'EUR', ${['clicks', 'spend', 'cpc']}, ${['total', 'ad-account', 'campaign', 'month']}) returning id`;
  for (const a of accounts)
    await t.db
      .sql`insert into report_ad_accounts (organization_id, report_id, ad_account_id) values (${org}, ${report.id}, ${a.id})`;
  const client = await createClient(t.db.sql, org);
  const token = await getToken(t, client);
  const data = async (groupBy: string) =>
    (await (
      await t.fetch(
        `/v1/reports/${report.id}/data?dateFrom=2026-01-09&dateTo=2026-01-11&groupBy=${groupBy}`,
        bearer(token),
      )
    ).json()) as {
      rows: { dimensions: Record<string, string>; metrics: Record<string, number | null> }[];
    };
  const file = async (ext: string, groupBy: string) =>
    (
      await t.fetch(
        `/v1/reports/${report.id}/export.${ext}?dateFrom=2026-01-09&dateTo=2026-01-11&groupBy=${groupBy}`,
        bearer(token),
      )
    ).text();
  return { org, data, file, accounts, warned, importStderr: out.stderr };
}

it(
  'no CHF rate: every row that holds CHF money has null money and null cpc, counts stay; never a partial sum',
  withApp(async (t) => {
    const { data, file, warned, importStderr } = await threeCurrencies(t);
    // The platform import warns of the currencies its money needs and no rate covers, with the command that fixes it.
    assert.equal(
      warned.map((w) => w.slice(0, 3)),
      ['CHF', 'EUR'],
    );
    assert.match(
      importStderr,
      /readout: warning: CHF has no exchange rate but money from 2026-01-11 \([^)]+\): .*readout fx import/,
    );
    // EUR rates only (the ECB's USD per EUR): USD converts, CHF cannot; the rate import says so too.
    const loaded = await fx(t, ['import', '--file', 'eur.csv'], 'date,currency,usd_per_unit\n2026-01-08,EUR,1.2\n');
    assert.is(loaded.code, 0, loaded.stderr);
    assert.equal(
      JSON.parse(loaded.stdout).warnings.map((w: string) => w.slice(0, 3)),
      ['CHF'],
    );
    assert.match(loaded.stderr, /warning: CHF has no exchange rate/);
    const total = (await data('total')).rows[0].metrics;
    assert.equal(
      total,
      { clicks: 160, spend: null, cpc: null },
      'the total holds CHF money: null, not 360.5 + 430/1.2',
    );
    const byAccount = Object.fromEntries(
      (await data('ad-account')).rows.map((r) => [r.dimensions.adAccountName, r.metrics]),
    );
    assert.equal(byAccount['Franc account'], { clicks: 10, spend: null, cpc: null });
    assert.is(byAccount['Euro account'].spend, 360.5);
    assert.ok(Math.abs(byAccount['Dollar account'].spend! - 430 / 1.2) < 1e-6, 'USD → EUR through the EUR rate');
    assert.equal((await data('month')).rows[0].metrics, { clicks: 160, spend: null, cpc: null });
    // The exports say the same: an empty cell where the JSON has null, never 0.
    const csv = await file('csv', 'ad-account');
    assert.match(csv, /Franc account,linkedin-ads,10,,\r\n/);
    assert.match(await file('csv', 'total'), /\r\n160,,\r\n$/);
  }),
);

it(
  'a day without a rate takes the latest earlier one; between two non-USD currencies, through both rates',
  withApp(async (t) => {
    const loaded = await fx(t, ['import', '--file', 'eurofxref-hist.csv'], ECB_HISTORY);
    assert.is(loaded.code, 0, loaded.stderr);
    assert.equal(JSON.parse(loaded.stdout).currencies, ['CHF', 'EUR', 'GBP', 'JPY']);
    const { data } = await threeCurrencies(t);
    const byAccount = Object.fromEntries(
      (await data('ad-account')).rows.map((r) => [r.dimensions.adAccountName, r.metrics.spend]),
    );
    // Saturday and Sunday take Friday's (2026-01-09) rates: USD per EUR 1.16, CHF per EUR 0.93.
    assert.ok(Math.abs(byAccount['Dollar account']! - 430 / 1.16) < 1e-6);
    assert.ok(Math.abs(byAccount['Franc account']! - (100 * (1.16 / 0.93)) / 1.16) < 1e-6, 'CHF → EUR through USD');
  }),
);

it(
  'import replaces a loaded day; the demo never overwrites imported rates; fx list says where rates came from',
  withApp(async (t) => {
    await fx(
      t,
      ['import', '--file', 'a.csv'],
      'date,currency,usd_per_unit\n2026-01-05,NOK,0.1\n2026-01-06,NOK,0.1\n2026-01-05,EUR,1.1\n',
    );
    await fx(t, ['import', '--file', 'b.csv'], 'date,currency,usd_per_unit\n2026-01-06,NOK,0.2\n');
    const [row] = await t.db
      .sql`select usd_per_unit, source from fx_rates where currency = 'NOK' and day = '2026-01-06'`;
    assert.equal([row.usd_per_unit, row.source], [0.2, 'import']);
    const out = await runCommand(['demo', '--json'], { sql: t.db.sql, now: t.clock.now, progress: () => {} });
    assert.is(out.code, 0, out.stderr);
    const list = JSON.parse((await fx(t, ['list'])).stdout).currencies as {
      currency: string;
      source: string;
      days: number;
      first: string;
    }[];
    const nok = list.find((c) => c.currency === 'NOK')!;
    assert.equal([nok.source, nok.days, nok.first], ['import', 2, '2026-01-05']);
    assert.ok(
      list.some((c) => c.source === 'demo'),
      'the demo marks its own rates',
    );
    const eur = list.find((c) => c.currency === 'EUR')!;
    assert.is(eur.source, 'import', 'EUR had imported rates, so the demo added none');
  }),
);

it(
  "an import removes the demo's rates of every currency it loads, and only of those",
  withApp(async (t) => {
    const out = await runCommand(['demo', '--json'], { sql: t.db.sql, now: t.clock.now, progress: () => {} });
    assert.is(out.code, 0, out.stderr);
    const sources = async () =>
      Object.fromEntries(
        (JSON.parse((await fx(t, ['list'])).stdout).currencies as { currency: string; source: string }[]).map((c) => [
          c.currency,
          c.source,
        ]),
      );
    const before = await sources();
    assert.is(before.EUR, 'demo');
    const demoCurrencies = Object.keys(before).filter((c) => before[c] === 'demo' && c !== 'EUR');
    assert.ok(demoCurrencies.length > 0, 'the demo has rates of another currency than EUR');
    await fx(t, ['import', '--file', 'a.csv'], 'date,currency,usd_per_unit\n2026-01-01,EUR,1.10\n');
    const after = await sources();
    assert.is(after.EUR, 'import');
    const [{ days }] = await t.db.sql`select count(*)::int as days from fx_rates where currency = 'EUR'`;
    assert.is(days, 1, "the demo's EUR days are gone, not mixed with the imported one");
    for (const currency of demoCurrencies) assert.is(after[currency], 'demo', `${currency} keeps the demo's rates`);
  }),
);

it(
  "replacing the demo's rates names, once, the organizations whose money turns null; an import speaks of its own",
  withApp(async (t) => {
    const out = await runCommand(['demo', '--json'], { sql: t.db.sql, now: t.clock.now, progress: () => {} });
    assert.is(out.code, 0, out.stderr);
    const [{ name: demo }] = await t.db
      .sql`select name from organizations where id = ${JSON.parse(out.stdout).organizationId}`;
    const loaded = await fx(t, ['import', '--file', 'a.csv'], 'date,currency,usd_per_unit\n2026-01-01,EUR,1.10\n');
    assert.is(loaded.code, 0, loaded.stderr);
    const eur = loaded.stderr.split('\n').filter((line) => line.startsWith('readout: warning: EUR'));
    assert.is(eur.length, 1, loaded.stderr);
    assert.match(eur[0], /\(([^)]+)\), now that the file's EUR rates replace the demo's: /);
    assert.ok(/\(([^)]+)\)/.exec(eur[0])![1].split(', ').includes(demo), eur[0]);
    // A new organization's import warns of its own money only: the demo's gap is not repeated on every load.
    const org = await createOrg(t.db.sql, { name: 'Acme' });
    const facts = `${HEADER}\n2026-01-05,meta-ads,act_1,Meta EU,EUR,c_1,Brand,cr_1,Hero,video,1000,50,100,5,200,400,100\n`;
    const imported = await importCsv(t, org, facts);
    assert.is(imported.code, 0, imported.stderr);
    assert.is(imported.stderr, '', "Acme's EUR money from 2026-01-05 has a rate");
    const early = await importCsv(t, org, facts.replace('2026-01-05', '2025-12-01'));
    assert.match(early.stderr, /warning: EUR has no rate before 2026-01-01 but money from 2025-12-01 \(Acme\):/);
    assert.not.ok(early.stderr.includes(demo), early.stderr);
  }),
);

it(
  'a bad file is refused whole: first bad line named, exit 2, nothing written',
  withApp(async (t) => {
    const before = (await t.db.sql`select count(*)::int as n from fx_rates`)[0].n;
    const out = await fx(
      t,
      ['import', '--file', 'bad.csv'],
      'date,currency,usd_per_unit\n2026-03-01,SEK,0.1\n2026-03-02,SEK,x\n',
    );
    assert.is(out.code, 2);
    assert.match(out.stderr, /--file: line 3: usd_per_unit "x"/);
    assert.is((await t.db.sql`select count(*)::int as n from fx_rates`)[0].n, before);
  }),
);

it('through the real command line: a .gz file through gunzip, and - for standard input', async () => {
  const dir = temporaryDir();
  const fresh = onPostgres ? await freshDatabaseUrl() : undefined;
  const env: NodeJS.ProcessEnv = { ...process.env, ...(fresh ? { DATABASE_URL: fresh.url } : { DATA_DIR: dir.path }) };
  delete env.FORCE_COLOR;
  const [cmd, base] = command('node', 'src/cli.ts');
  try {
    // Only demo and org create make an embedded database (docs/decisions.md §10).
    const made = spawnSync(cmd, [...base, 'org', 'create', '--name', 'Rates'], { env, encoding: 'utf8' });
    assert.is(made.status, 0, made.stderr);
    const gz = join(dir.path, 'eurofxref-hist.csv.gz');
    writeFileSync(gz, gzipSync(ECB_HISTORY));
    const fromGz = spawnSync(cmd, [...base, 'fx', 'import', '--file', gz, '--json'], { env, encoding: 'utf8' });
    assert.is(fromGz.status, 0, fromGz.stderr);
    assert.equal(JSON.parse(fromGz.stdout).currencies, ['CHF', 'EUR', 'GBP', 'JPY']);
    const fromStdin = spawnSync(cmd, [...base, 'fx', 'import', '--file', '-'], {
      env,
      encoding: 'utf8',
      input: ECB_DAILY,
    });
    assert.is(fromStdin.status, 0, fromStdin.stderr);
    assert.match(fromStdin.stdout, /^4 rates of 4 currencies over 1 day imported \(CHF, EUR, GBP, JPY\)/);
    const listed = spawnSync(cmd, [...base, 'fx', 'list', '--json'], { env, encoding: 'utf8' });
    const eur = JSON.parse(listed.stdout).currencies.find((c: { currency: string }) => c.currency === 'EUR');
    assert.equal([eur.first, eur.last, eur.days, eur.source], ['2026-01-05', '2026-01-09', 4, 'import']);
    const bad = spawnSync(cmd, [...base, 'fx', 'import', '--file', '-'], {
      env,
      encoding: 'utf8',
      input: 'Date,USD\n2026-13-01,1.1\n',
    });
    assert.is(bad.status, 2);
    assert.match(bad.stderr, /readout: --file: line 2: "2026-13-01" is not a date/);
  } finally {
    dir.remove();
    await fresh?.drop();
  }
});

it.run();
