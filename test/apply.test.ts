// Reports as code (docs/decisions.md §12, issue 30): `readout apply` and `readout config export`. The walk-through file
// of README's operator guide is applied to a new organization and its answers compared with sums of its CSV; every kind
// of bad file is refused with its places and nothing written; re-apply, dry run, prune, round trip, ETags.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { runCommand } from '../src/cli/run.ts';
import { query } from '../src/store/queries.ts';
import { configJsonSchema, CONFIG_SCHEMA_PATH } from '../scripts/configSchema.ts';
import { testApp, type TestApp } from './support/app.ts';
import { onPostgres, processDatabase } from './support/database.ts';
import { bearer, createClient, createOrg, getToken } from './support/fixtures.ts';
import { importCsv } from './support/importFixture.ts';
import { temporaryDir } from './support/server.ts';

/** The code blocks of README's walk-through: rates.csv, facts.csv, readout.yaml, in that order. */
function walkThrough() {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('## From an empty organization'), readme.indexOf('## Configuration'));
  const blocks = [...section.matchAll(/```(csv|yaml)\n([\s\S]*?)```/g)].map(([, , body]) =>
    body.replace(/^ {3}/gm, ''),
  );
  assert.is(blocks.length, 3, 'README walk-through: rates.csv, facts.csv and readout.yaml');
  const [rates, facts, yaml] = blocks;
  return { rates, facts, yaml };
}

type Ctx = { t: TestApp; org: string; token: string; files: ReturnType<typeof walkThrough> };
const it = suite<Ctx>('readout apply');

let file = '';
const run = (t: TestApp, argv: string[]) =>
  runCommand(argv, {
    sql: t.db.sql,
    now: t.clock.now,
    progress: () => {},
    readText: async () => file,
    copy: onPostgres,
  });
const apply = async (t: TestApp, org: string, source: string, ...flags: string[]) => {
  file = source;
  const out = await run(t, ['apply', '--org', org, '--file', 'readout.yaml', '--json', ...flags]);
  return { ...out, json: out.code === 0 ? JSON.parse(out.stdout) : undefined };
};
const snapshot = async (t: TestApp, org: string) => {
  const [version] = await t.db
    .sql`select coalesce((select version from report_versions where organization_id = ${org}), 0) as version`;
  const [catalogue] = await query(t.db.sql, 'catalogue-read', { org });
  return JSON.stringify([version, catalogue]);
};
const get = async (t: TestApp, token: string, path: string, init: RequestInit = {}) => {
  const res = await t.fetch(path, { ...init, headers: { ...bearer(token).headers, ...init.headers } });
  return { status: res.status, etag: res.headers.get('etag'), body: res.status === 200 ? await res.json() : undefined };
};

it.before(async (ctx) => {
  ctx.t = await testApp();
  ctx.files = walkThrough();
  ctx.org = await createOrg(ctx.t.db.sql, { currency: 'EUR' });
  file = ctx.files.rates;
  const fx = await run(ctx.t, ['fx', 'import', '--file', 'rates.csv']);
  assert.is(fx.code, 0, fx.stderr);
  const imported = await importCsv(ctx.t, ctx.org, ctx.files.facts);
  assert.is(imported.code, 0, imported.stderr);
  ctx.token = await getToken(ctx.t, await createClient(ctx.t.db.sql, ctx.org));
});
it.after(async (ctx) => ctx.t.close());

it("README's file: a dry run writes nothing, apply creates it all, the API answers the CSV's sums, and again changes nothing", async ({
  t,
  org,
  token,
  files,
}) => {
  const before = await snapshot(t, org);
  const dry = await apply(t, org, files.yaml, '--dry-run');
  assert.is(dry.code, 0, dry.stderr);
  const created = [
    { action: 'create', type: 'metric', name: 'cost_per_view' },
    { action: 'create', type: 'segment', name: 'Brand' },
    { action: 'create', type: 'report', name: 'Europe in EUR' },
    { action: 'create', type: 'report', name: 'Brand' },
  ];
  assert.equal(dry.json, { organizationId: org, changes: created, applied: false });
  assert.is(await snapshot(t, org), before, 'a dry run writes nothing');
  file = files.yaml;
  const text = await run(t, ['apply', '--org', org, '--file', 'readout.yaml', '--dry-run']);
  assert.equal(text.stdout.trim().split('\n'), [
    '+ metric "cost_per_view"',
    '+ segment "Brand"',
    '+ report "Europe in EUR"',
    '+ report "Brand"',
    'dry run: 4 changes, nothing written',
  ]);

  const done = await apply(t, org, files.yaml);
  assert.is(done.code, 0, done.stderr);
  assert.equal(done.json, { organizationId: org, changes: created, applied: true });

  // Lists and definitions show it at once.
  const reports = (await get(t, token, '/v1/reports')).body.data as { id: string; name: string; metrics: string[] }[];
  assert.equal(reports.map((r) => r.name).sort(), ['Brand', 'Europe in EUR']);
  const europe = reports.find((r) => r.name === 'Europe in EUR')!;
  assert.equal(europe.metrics, ['impressions', 'clicks', 'spend', 'cpc', 'cost_per_view']);
  const metrics = (await get(t, token, `/v1/organizations/${org}/metrics?pageSize=200`)).body.data as {
    name: string;
    formula?: string;
  }[];
  assert.is(metrics.find((m) => m.name === 'cost_per_view')?.formula, 'spend / video_views');

  // The numbers are the CSV's: EUR as it is, USD at the file's rate (1.10 USD a euro).
  const rows = parseCsv(files.facts);
  const usdPerEur = Number(files.rates.trim().split('\n')[1].split(',')[2]);
  const spend = rows.reduce((sum, r) => sum + Number(r.spend) / (r.currency === 'USD' ? usdPerEur : 1), 0);
  const views = rows.reduce((sum, r) => sum + Number(r.video_views), 0);
  const total = (await get(t, token, `/v1/reports/${europe.id}/data?dateFrom=2026-01-01&dateTo=2026-01-31`)).body;
  assert.equal(total.rows[0].metrics, {
    impressions: rows.reduce((sum, r) => sum + Number(r.impressions), 0),
    clicks: rows.reduce((sum, r) => sum + Number(r.clicks), 0),
    spend: round(spend),
    cpc: round(spend / rows.reduce((sum, r) => sum + Number(r.clicks), 0)),
    cost_per_view: round(spend / views),
  });
  const brand = reports.find((r) => r.name === 'Brand')!;
  const bySegment = (
    await get(t, token, `/v1/reports/${brand.id}/data?dateFrom=2026-01-01&dateTo=2026-01-31&groupBy=segment`)
  ).body;
  const inBrand = rows.filter((r) => ['c_1', 's_1'].includes(r.campaign_id));
  assert.equal(
    bySegment.rows.map((r: { dimensions: { segmentName: string }; metrics: { impressions: number } }) => [
      r.dimensions.segmentName,
      r.metrics.impressions,
    ]),
    [['Brand', inBrand.reduce((sum, r) => sum + Number(r.impressions), 0)]],
  );

  const again = await apply(t, org, files.yaml);
  assert.equal(again.json, { organizationId: org, changes: [], applied: true });
  const said = await run(t, ['apply', '--org', org, '--file', 'readout.yaml']);
  assert.is(said.stdout.trim(), 'no changes: the organization already matches readout.yaml');
});

it("the walk-through's last step on a database holding the demo's rates: Brand search's 55 USD shows as 50 EUR", async ({
  files,
}) => {
  // Every install starts with the demo (DEMO is on with the embedded database), and its EUR rates run every day.
  const t = await testApp({ demo: true });
  try {
    const org = await createOrg(t.db.sql, { currency: 'EUR' });
    const run = (argv: string[], text = '') =>
      runCommand(argv, {
        sql: t.db.sql,
        now: t.clock.now,
        progress: () => {},
        readText: async () => text,
        copy: onPostgres,
      });
    assert.is((await run(['fx', 'import', '--file', 'rates.csv'], files.rates)).code, 0);
    assert.is((await importCsv(t, org, files.facts)).code, 0);
    assert.is((await run(['apply', '--org', org, '--file', 'readout.yaml'], files.yaml)).code, 0);
    const token = await getToken(t, await createClient(t.db.sql, org));
    const [report] = await t.db.sql`select id from reports where organization_id = ${org} and name = 'Europe in EUR'`;
    const { body } = await get(
      t,
      token,
      `/v1/reports/${report.id}/data?groupBy=campaign&dateFrom=2026-01-01&dateTo=2026-01-31`,
    );
    const spend = Object.fromEntries(
      body.rows.map((r: { dimensions: { campaignName: string }; metrics: { spend: number } }) => [
        r.dimensions.campaignName,
        r.metrics.spend,
      ]),
    );
    assert.equal(spend, { 'Brand search': 50, 'Brand video': 210, Prospecting: 80 });
  } finally {
    await t.close();
  }
});

it('a change shows at once: definitions, data and ETags (an old ETag is never answered 304)', async ({
  t,
  org,
  token,
  files,
}) => {
  await apply(t, org, files.yaml);
  const reports = (await get(t, token, '/v1/reports')).body.data as { id: string; name: string }[];
  const europe = reports.find((r) => r.name === 'Europe in EUR')!.id;
  const brand = reports.find((r) => r.name === 'Brand')!.id;
  const europeData = `/v1/reports/${europe}/data?dateFrom=2026-01-01&dateTo=2026-01-31&groupBy=ad-account`;
  const brandData = `/v1/reports/${brand}/data?dateFrom=2026-01-01&dateTo=2026-01-31&groupBy=segment`;
  const first = {
    europe: await get(t, token, europeData),
    brand: await get(t, token, brandData),
    definition: await get(t, token, `/v1/reports/${europe}`),
  };
  const unchanged = await get(t, token, europeData, { headers: { 'if-none-match': first.europe.etag! } });
  assert.is(unchanged.status, 304);

  const config = parse(files.yaml);
  config.reports[0].metrics = ['impressions', 'spend', 'cost_per_view'];
  config.metrics[0].formula = 'spend / video_views * 1000';
  config.segments[0].campaigns = ['meta-ads/act_123/c_1'];
  config.adAccounts = [{ platform: 'meta-ads', externalId: 'act_123', name: 'Meta Europe', currency: 'EUR' }];
  const changed = await apply(t, org, JSON.stringify(config));
  assert.is(changed.code, 0, changed.stderr);
  assert.equal(changed.json.changes, [
    { action: 'update', type: 'ad account', name: 'meta-ads/act_123', fields: ['name'] },
    { action: 'update', type: 'metric', name: 'cost_per_view', fields: ['formula'] },
    { action: 'update', type: 'segment', name: 'Brand', fields: ['campaigns'] },
    { action: 'update', type: 'report', name: 'Europe in EUR', fields: ['metrics'] },
  ]);

  const definition = await get(t, token, `/v1/reports/${europe}`, {
    headers: { 'if-none-match': first.definition.etag ?? '' },
  });
  assert.is(definition.status, 200);
  assert.equal(definition.body.metrics, ['impressions', 'spend', 'cost_per_view']);
  const europeNow = await get(t, token, europeData, { headers: { 'if-none-match': first.europe.etag! } });
  assert.is(europeNow.status, 200, 'a changed report never answers 304 to an old ETag');
  assert.equal(europeNow.body.metrics, ['impressions', 'spend', 'cost_per_view']);
  const meta = europeNow.body.rows.find(
    (r: { dimensions: { platform: string } }) => r.dimensions.platform === 'meta-ads',
  );
  assert.is(meta.dimensions.adAccountName, 'Meta Europe', 'the ad account is renamed');
  assert.is(meta.metrics.cost_per_view, round((290 / 900) * 1000), 'the new formula');
  // Only the segment's membership changed: its report's data and ETag follow all the same.
  const brandNow = await get(t, token, brandData, { headers: { 'if-none-match': first.brand.etag! } });
  assert.is(brandNow.status, 200);
  assert.ok(
    brandNow.body.rows[0].metrics.impressions < first.brand.body.rows[0].metrics.impressions,
    'the segment lost Brand search',
  );
});

it('every problem of a file is listed with its path and line; exit 2, nothing written', async ({ t, org, files }) => {
  await apply(t, org, files.yaml);
  const before = await snapshot(t, org);
  const bad = [
    'adAccounts:',
    '  - { platform: meta-ads, externalId: act_123, name: Meta EU, currency: USD }',
    '  - { platform: meta-ads, externalId: act_9, name: New, currency: EUX, timeZone: Mars/Base }',
    '  - { platform: meta-ads, externalId: act_9, name: Again, currency: EUR }',
    'metrics:',
    '  - { name: broken, kind: money, formula: "spend / nonexistent +" }',
    '  - { name: unknown_ref, kind: money, formula: spend / nonexistent }',
    '  - { name: a_loop, kind: ratio, formula: b_loop * 2 }',
    '  - { name: b_loop, kind: ratio, formula: a_loop + clicks }',
    '  - { name: ctr, kind: percent, formula: clicks }',
    '  - { name: odd, kind: moneyz, formula: spend }',
    'segments:',
    '  - { name: S1, campaigns: [meta-ads/act_123/nope] }',
    '  - { name: S1 }',
    'reports:',
    '  - name: R1',
    '    kind: standard',
    '    currency: USD',
    '    adAccounts: [meta-ads/act_unknown]',
    '    segments: [S1, Nope]',
    '    metrics: [impressions, cpx, odd]',
    '    groupings: [total, segment]',
    '    colour: red',
    '  - { name: R2, kind: segment, currency: usd, adAccounts: [meta-ads/act_123], metrics: [clicks], groupings: [total, weekly] }',
    '  - { name: R3, kind: segment, currency: EUR, adAccounts: [meta-ads/act_123], metrics: [clicks, clicks], groupings: [total] }',
    '  - { name: R1, kind: months, currency: EUR, adAccounts: [meta-ads/act_123], metrics: [clicks], groupings: [month] }',
  ].join('\n');
  const out = await apply(t, org, bad);
  assert.is(out.code, 2);
  assert.is(out.stdout, '');
  const lines = out.stderr.trimEnd().split('\n');
  const expected = [
    "readout.yaml:2: adAccounts[0].currency: ad account meta-ads/act_123 keeps its money in EUR; an ad account's currency cannot change",
    'readout.yaml:3: adAccounts[1].currency: unknown currency "EUX" (not an ISO 4217 code)',
    'readout.yaml:3: adAccounts[1].timeZone: unknown time zone "Mars/Base"',
    'readout.yaml:4: adAccounts[2]: ad account meta-ads/act_9 is already listed at adAccounts[1]',
    'readout.yaml:6: metrics[0].formula: formula "spend / nonexistent +" does not parse: formula ends too early',
    'readout.yaml:7: metrics[1].formula: unknown metric "nonexistent" in formula "spend / nonexistent"',
    'readout.yaml:8: metrics[2].formula: a_loop refers to itself through b_loop',
    'readout.yaml:9: metrics[3].formula: b_loop refers to itself through a_loop',
    'readout.yaml:10: metrics[4].name: "ctr" is a system metric; a custom metric needs a name of its own',
    'readout.yaml:11: metrics[5].kind: must be one of money, count, percent, ratio, decimal, got "moneyz"',
    'readout.yaml:13: segments[0].campaigns[0]: unknown campaign "meta-ads/act_123/nope" (campaigns come from `readout import`)',
    'readout.yaml:14: segments[1]: segment "S1" is already listed at segments[0]',
    'readout.yaml:19: reports[0].adAccounts[0]: unknown ad account "meta-ads/act_unknown" (list it under adAccounts, or load it with `readout import`)',
    'readout.yaml:20: reports[0].segments[1]: unknown segment "Nope"',
    'readout.yaml:20: reports[0].segments: only segment reports have segments; this one is standard',
    'readout.yaml:21: reports[0].metrics[1]: unknown metric "cpx"',
    'readout.yaml:22: reports[0].groupings[1]: a standard report cannot answer segment; only segment reports can',
    'readout.yaml:23: reports[0].colour: unknown key "colour"',
    'readout.yaml:24: reports[1].currency: must be a three-letter ISO 4217 code such as EUR, got "usd"',
    'readout.yaml:24: reports[1].groupings[1]: must be one of total, campaign, segment, month, ad-account, video, creative, got "weekly"',
    'readout.yaml:24: reports[1].segments: a segment report needs at least one segment',
    'readout.yaml:25: reports[2].metrics: metrics lists "clicks" twice',
    'readout.yaml:25: reports[2].segments: a segment report needs at least one segment',
    'readout.yaml:26: reports[3]: report "R1" is already listed at reports[0]',
  ];
  assert.equal(lines, [`readout: readout.yaml: ${expected.length} problems, nothing written`, ...expected]);
  assert.is(await snapshot(t, org), before, 'nothing written');

  for (const [source, message] of [
    ['reports: [', /^readout\.yaml:1: not valid YAML: /m],
    ['reports: []\nreports: []', /^readout\.yaml:2: not valid YAML: Map keys must be unique/m],
    ['reports: {}', /^readout\.yaml:1: reports: must be a list, got Object/m],
    ['- 1', /^readout\.yaml:1: must be a mapping \(adAccounts, baseMetrics, metrics, segments, reports\), got a list/m],
  ] as const) {
    const refused = await apply(t, org, source);
    assert.is(refused.code, 2, source);
    assert.match(refused.stderr, message);
  }
  assert.is(await snapshot(t, org), before, 'nothing written');
});

it('applying is one transaction: a write that fails half-way leaves nothing of the file behind', async ({
  t,
  org,
  files,
}) => {
  await apply(t, org, files.yaml);
  await t.db.sql.unsafe(`create function refuse_boom() returns trigger language plpgsql as $$
    begin if new.name = 'Boom' then raise exception 'no Boom'; end if; return new; end $$`);
  await t.db.sql.unsafe(
    'create trigger refuse_boom before insert on reports for each row execute function refuse_boom()',
  );
  try {
    const before = await snapshot(t, org);
    const config = parse(files.yaml);
    config.metrics.push({ name: 'written_first', kind: 'count', formula: 'clicks' });
    config.reports[0].metrics = ['impressions'];
    config.reports.push({
      name: 'Boom',
      kind: 'standard',
      currency: 'EUR',
      adAccounts: ['meta-ads/act_123'],
      metrics: ['clicks'],
      groupings: ['total'],
    });
    const out = await apply(t, org, JSON.stringify(config));
    assert.is(out.code, 1, out.stdout);
    assert.match(out.stderr, /no Boom/);
    assert.is(
      await snapshot(t, org),
      before,
      'the metric and the changed report written before the failure are gone too',
    );
  } finally {
    await t.db.sql.unsafe('drop trigger refuse_boom on reports; drop function refuse_boom()');
  }
});

it('--prune deletes what the file leaves out: 404 at once, and allow-lists keep their other entries', async ({
  t,
  org,
  files,
}) => {
  await apply(t, org, files.yaml);
  const config = parse(files.yaml);
  config.reports.push({
    name: 'Extra',
    kind: 'standard',
    currency: 'EUR',
    adAccounts: ['meta-ads/act_123'],
    metrics: ['clicks'],
    groupings: ['total'],
  });
  assert.is((await apply(t, org, JSON.stringify(config))).code, 0);
  const ids = Object.fromEntries(
    (await t.db.sql`select name, id from reports where organization_id = ${org}`).map((r) => [r.name, r.id]),
  );
  const narrow = await createClient(t.db.sql, org, { reports: `${ids.Extra},${ids['Europe in EUR']}` });
  const token = await getToken(t, narrow);
  assert.is((await get(t, token, `/v1/reports/${ids.Extra}`)).status, 200);

  // Without --prune nothing goes; with it, the report, segment and metric the file no longer names.
  const smaller = parse(files.yaml);
  smaller.metrics = [];
  smaller.segments = [];
  smaller.reports = smaller.reports.filter((r: { name: string }) => r.name === 'Europe in EUR');
  smaller.reports[0].metrics = ['impressions', 'clicks'];
  const kept = await apply(t, org, JSON.stringify(smaller));
  assert.is(kept.code, 0, kept.stderr);
  assert.equal(kept.json.changes, [{ action: 'update', type: 'report', name: 'Europe in EUR', fields: ['metrics'] }]);
  const pruned = await apply(t, org, JSON.stringify(smaller), '--prune', '--dry-run');
  assert.equal(pruned.json.changes, [
    { action: 'delete', type: 'report', name: 'Brand' },
    { action: 'delete', type: 'report', name: 'Extra' },
    { action: 'delete', type: 'segment', name: 'Brand' },
    { action: 'delete', type: 'metric', name: 'cost_per_view' },
  ]);
  assert.is((await get(t, token, `/v1/reports/${ids.Extra}`)).status, 200, 'a dry run deletes nothing');
  const done = await apply(t, org, JSON.stringify(smaller), '--prune');
  assert.is(done.code, 0, done.stderr);
  assert.is((await get(t, token, `/v1/reports/${ids.Extra}`)).status, 404);
  assert.is((await get(t, token, `/v1/reports/${ids.Extra}/data?dateFrom=2026-01-01&dateTo=2026-01-31`)).status, 404);
  assert.equal(
    ((await get(t, token, '/v1/reports')).body.data as { name: string }[]).map((r) => r.name),
    ['Europe in EUR'],
  );
  const [client] = await t.db.sql`select report_ids from api_clients where id = ${narrow.clientId}`;
  assert.equal(client.report_ids, [ids['Europe in EUR']]);
  const [counts] = await t.db
    .sql`select (select count(*)::int from segments where organization_id = ${org}) as segments,
    (select count(*)::int from custom_metrics where organization_id = ${org}) as metrics,
    (select count(*)::int from ad_accounts where organization_id = ${org}) as accounts,
    (select count(*)::int from facts where organization_id = ${org}) as facts`;
  assert.equal(
    counts,
    { segments: 0, metrics: 0, accounts: 2, facts: parseCsv(files.facts).length },
    'never ad accounts or numbers',
  );
  // A report that still uses what --prune would delete is an error, not a dangling reference.
  smaller.reports[0].metrics = ['cost_per_view'];
  const dangling = await apply(t, org, JSON.stringify(smaller), '--prune');
  assert.is(dangling.code, 2);
  assert.match(dangling.stderr, /reports\[0\]\.metrics\[0\]: unknown metric "cost_per_view"/);
});

it('hostile files are refused whole in one line naming the file, exit 2, nothing written: an alias bomb, past 1 MB, past 10,000 entries', async ({
  t,
  org,
}) => {
  const before = await snapshot(t, org);
  const bomb = [
    'a: &a [x, x, x, x, x, x, x, x, x, x]',
    ...'bcdefgh'.split('').map((name, i) => `${name}: &${name} [${Array(10).fill(`*${'abcdefgh'[i]}`).join(', ')}]`),
    'reports: *h',
  ].join('\n');
  const oversized = `adAccounts:\n${'  - { platform: meta-ads, externalId: "act", name: "A very long account name to fill the file" }\n'.repeat(14_000)}`;
  const many = `adAccounts:\n${Array.from({ length: 10_001 }, (_, i) => `  - {platform: meta-ads, externalId: a${i}}`).join('\n')}\n`;
  for (const [source, message] of [
    [bomb, /^readout: readout\.yaml: not applied: its aliases expand past 100 uses of one node .*; nothing written$/],
    [
      oversized,
      /^readout: readout\.yaml: not applied: the file holds 1\.\d MB, more than the 1 MB apply reads; .*nothing written$/,
    ],
    [
      many,
      /^readout: readout\.yaml:2: not applied: adAccounts: more than 10,000 entries in the file; .*nothing written$/,
    ],
  ] as const) {
    const out = await apply(t, org, source);
    assert.is(out.code, 2, out.stderr);
    assert.is(out.stdout, '');
    const lines = out.stderr.trimEnd().split('\n');
    assert.is(lines.length, 1, out.stderr);
    assert.match(lines[0], message);
  }
  assert.is(await snapshot(t, org), before, 'nothing written');
});

it('a 15 MB file is refused by a real process whose heap is capped at 100 MB: it is never parsed', async ({
  t,
  org,
}) => {
  const dir = temporaryDir();
  try {
    const path = `${dir.path}/big.yaml`;
    writeFileSync(
      path,
      `adAccounts:\n${Array.from({ length: 200_000 }, (_, i) => `  - { platform: meta-ads, externalId: "act_${i}", name: "Account ${i}", currency: USD }`).join('\n')}\n`,
    );
    // Not spawnSync: this process may host the embedded database the command connects to.
    const child = spawn(
      process.execPath,
      ['--max-old-space-size=100', '--import', 'tsx', 'src/cli.ts', 'apply', '--org', org, '--file', path, '--dry-run'],
      {
        env: { ...process.env, DATABASE_URL: t.db.url, FORCE_COLOR: undefined },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const status = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const out = { status, stderr };
    assert.is(out.status, 2, out.stderr.slice(-500));
    const lines = out.stderr
      .trim()
      .split('\n')
      .filter((line) => !line.startsWith('npm warn') && !line.startsWith('readout: database: '));
    assert.is(lines.length, 1, out.stderr);
    assert.ok(/^readout: --file: .*big\.yaml is longer than the 1 MB apply reads; split it/.test(lines[0]), lines[0]);
  } finally {
    dir.remove();
  }
});

it('config export prints what apply reads: applying it changes nothing (the demo organization)', async () => {
  const t = await testApp({ demo: true });
  try {
    const [demo] = await t.db.sql`select id from organizations order by created_at limit 1`;
    const exported = await run(t, ['config', 'export', '--org', demo.id]);
    assert.is(exported.code, 0, exported.stderr);
    const config = parse(exported.stdout);
    assert.is(config.reports.length, 5);
    assert.ok(config.metrics.some((m: { formula: string }) => m.formula === 'spend / video_views'));
    const ajv = new Ajv2020({ allErrors: true });
    assert.ok(ajv.validate(JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')), config), JSON.stringify(ajv.errors));
    const again = await apply(t, demo.id, exported.stdout, '--prune');
    assert.equal(again.json.changes, []);
    const json = await run(t, ['config', 'export', '--org', demo.id, '--json']);
    assert.is(JSON.parse(json.stdout).yaml, exported.stdout);
  } finally {
    await t.close();
  }
});

it('spec/readout-config.schema.json is what the valibot schema generates (npm run config:schema)', () => {
  assert.is(readFileSync(CONFIG_SCHEMA_PATH, 'utf8'), configJsonSchema());
  const schema = JSON.parse(configJsonSchema());
  const ajv = new Ajv2020({ allErrors: true });
  assert.ok(ajv.validate(schema, parse(walkThrough().yaml)), "README's file is valid");
  assert.not.ok(
    ajv.validate(schema, {
      reports: [
        {
          name: 'x',
          kind: 'standard',
          currency: 'EUR',
          adAccounts: ['meta-ads/a'],
          metrics: ['clicks'],
          groupings: ['total'],
          colour: 1,
        },
      ],
    }),
  );
  assert.not.ok(ajv.validate(schema, { metrics: [{ name: 'x', kind: 'moneyz', formula: 'spend' }] }));
});

it('real processes: config export | apply --file - --dry-run reports no change', async () => {
  const database = await processDatabase();
  const env = database.env;
  const cli = (args: string[], input?: string) =>
    spawnSync('node', ['--import', 'tsx', 'src/cli.ts', ...args], { env, input, encoding: 'utf8', timeout: 120_000 });
  const yaml = [
    'adAccounts:',
    '  - { platform: tiktok-ads, externalId: tt_1, name: TikTok, currency: USD }',
    'metrics:',
    '  - { name: double_cpc, kind: money, formula: cpc * 2 }',
    'reports:',
    '  - { name: TikTok, kind: months, currency: USD, adAccounts: [tiktok-ads/tt_1], metrics: [spend, double_cpc], groupings: [total, month] }',
  ].join('\n');
  try {
    const created = cli(['org', 'create', '--name', 'Piped', '--json']);
    assert.is(created.status, 0, created.stderr);
    const org = JSON.parse(created.stdout).organizationId;
    const applied = cli(['apply', '--org', org, '--file', '-'], yaml);
    assert.is(applied.status, 0, applied.stderr);
    assert.is(
      applied.stdout,
      '+ ad account "tiktok-ads/tt_1"\n+ metric "double_cpc"\n+ report "TikTok"\napplied 3 changes\n',
    );
    const exported = cli(['config', 'export', '--org', org]);
    assert.is(exported.status, 0, exported.stderr);
    const roundTrip = cli(['apply', '--org', org, '--file', '-', '--dry-run', '--prune'], exported.stdout);
    assert.is(roundTrip.status, 0, roundTrip.stderr);
    assert.is(roundTrip.stdout, 'no changes: the organization already matches stdin\n');
  } finally {
    await database.remove();
  }
});

it.run();

function parseCsv(text: string): Record<string, string>[] {
  const [header, ...lines] = text.trim().split('\n');
  const names = header.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((value, i) => [names[i], value])));
}

function round(value: number) {
  return Math.round(value * 1e6) / 1e6;
}
