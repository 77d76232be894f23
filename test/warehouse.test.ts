// README, "Loading a warehouse": the nightly job it describes, run against a real server process. A table of
// daily campaign rows loaded once, then kept by pulls of `interval=day&changedSince=<the last Next-Changed-Since>`
// upserted by their dimension keys, equals a full pull after restatements, late days and a new campaign.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { testApp } from './support/app.ts';
import { createClient, createOrg } from './support/fixtures.ts';
import { fixtureReport, HEADER, importCsv } from './support/importFixture.ts';
import { startServer, temporaryDir, tokenFrom, type RunningServer } from './support/server.ts';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bearer, getToken } from './support/fixtures.ts';
import { skipped } from './support/skip.ts';

const it = suite('loading a warehouse');

type Row = { dimensions: Record<string, string>; metrics: Record<string, number | null> };

/** The warehouse table: rows by their dimension keys (day and campaign), as an upsert keeps them. */
type Table = Map<string, Row>;
const keyOf = (row: Row) => `${row.dimensions.day} ${row.dimensions.campaignId}`;

it('the nightly job keeps a table equal to a full pull', async () => {
  const t = await testApp();
  let server: RunningServer | undefined;
  try {
    const org = await createOrg(t.db.sql);
    const { report } = await fixtureReport(t, org);
    const client = await createClient(t.db.sql, org);
    server = await startServer({ DATABASE_URL: t.db.url, BASE_URL: 'http://readout.test', DEMO: 'off' });
    const token = await tokenFrom(server, client);
    const window = 'dateFrom=2026-01-01&dateTo=2026-02-28';
    const pull = async (changedSince?: string) => {
      const since = changedSince ? `&changedSince=${encodeURIComponent(changedSince)}` : '';
      const res = await fetch(
        `${server!.url}/v1/reports/${report}/data?groupBy=campaign&interval=day&${window}${since}`,
        {
          headers: { authorization: `Bearer ${token}` },
        },
      );
      assert.is(res.status, 200);
      return { rows: (await res.json()).rows as Row[], resume: res.headers.get('next-changed-since')! };
    };
    const upsert = (table: Table, rows: Row[]) => {
      for (const row of rows) table.set(keyOf(row), row);
    };
    // Loads go through the import command's own code, in this process: the embedded database's socket takes no COPY.
    const load = async (lines: string[]) => {
      const out = await importCsv(t, org, [HEADER, ...lines].join('\n'));
      assert.is(out.code, 0, out.stderr);
    };

    // The first run: everything in the window.
    const table: Table = new Map();
    const first = await pull();
    upsert(table, first.rows);
    let resume = first.resume;

    // Between runs: the platform restates 6 January, a day arrives late, and a new campaign starts on the 7th.
    await load([
      '2026-01-06,meta-ads,M1,Meta EU,EUR,C1,"Alpha, ""the"" first",K1,Alpha video,video,1800,70,130,9,300,500,120',
      '2026-01-08,google-ads,G1,Google US,USD,C2,Beta search,K2,Beta text,text,2200,25,40,1,30,0,0',
      '2026-01-07,google-ads,G1,Google US,USD,C4,Delta search,K4,Delta text,text,900,9,12,0,0,0,0',
    ]);
    const second = await pull(resume);
    assert.equal([...new Set(second.rows.map((r) => r.dimensions.day))], ['2026-01-06', '2026-01-07', '2026-01-08']);
    upsert(table, second.rows);
    resume = second.resume;

    // A quiet night returns nothing; then 10 February is restated.
    assert.equal((await pull(resume)).rows, []);
    await load(['2026-02-10,google-ads,G1,Google US,USD,C2,Beta search,K2,Beta text,text,1111,11,22,3,60,0,0']);
    const fourth = await pull(resume);
    assert.equal(
      fourth.rows.map((r) => r.dimensions.day),
      ['2026-02-10'],
    );
    upsert(table, fourth.rows);

    const full = await pull();
    assert.equal(
      [...table.values()].sort((a, b) => keyOf(a).localeCompare(keyOf(b))),
      full.rows.sort((a, b) => keyOf(a).localeCompare(keyOf(b))),
    );
  } finally {
    await server?.stop();
    await t.close();
  }
});

it("the recipe's check stops a pull that lacks a metric the plan leaves out, and passes one that has them all", async () => {
  if (skipped(spawnSync('jq', ['--version']).status !== 0, 'loading a warehouse', 'the metrics check', 'needs jq'))
    return;
  // The first run's check, as docs/warehouse.md writes it.
  const recipe = readFileSync('docs/warehouse.md', 'utf8');
  const check = /^(jq -e --arg asked [^\n]*\n[^\n]*)$/m.exec(recipe)?.[1];
  assert.ok(check, "docs/warehouse.md checks the answer's metrics");
  const t = await testApp();
  const dir = temporaryDir();
  try {
    for (const [plan, passes] of [
      ['business', false],
      ['enterprise', true],
    ] as const) {
      const org = await createOrg(t.db.sql, { plan });
      const { report } = await fixtureReport(t, org);
      const token = await getToken(t, await createClient(t.db.sql, org));
      const metrics = 'impressions,clicks,spend,conversions';
      const res = await t.fetch(
        `/v1/reports/${report}/data?groupBy=campaign&interval=day&metrics=${metrics}&dateFrom=2026-01-01&dateTo=2026-01-31`,
        bearer(token),
      );
      assert.is(res.status, 200);
      writeFileSync(join(dir.path, 'rows.json'), await res.text());
      const ran = spawnSync('bash', ['-c', `METRICS=${metrics}\n${check.replace('exit 1', 'exit 3')}`], {
        cwd: dir.path,
        encoding: 'utf8',
      });
      assert.is(ran.status, passes ? 0 : 3, `${plan}: ${ran.stderr}`);
      if (!passes)
        assert.match(
          ran.stderr,
          /the answer lacks a metric it was asked for \(the plan\?\): \["impressions","clicks","spend"\]/,
        );
    }
  } finally {
    dir.remove();
    await t.close();
  }
});

it.run();
