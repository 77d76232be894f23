// The XLSX as LibreOffice reads it (Debian's libreoffice-calc-nogui, which `.ci/run` installs): converted to CSV with
// the cells' own values, it holds the data answer's values, nulls as empty cells.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { testApp, type TestApp } from './support/app.ts';
import { bearer, createClient, createOrg, getToken } from './support/fixtures.ts';
import { fixtureReport } from './support/importFixture.ts';
import { temporaryDir } from './support/server.ts';
import { skipped } from './support/skip.ts';

const SOFFICE = '/usr/bin/soffice';
const it = suite<{ t?: TestApp }>('XLSX in LibreOffice');
it.after(async (ctx) => ctx.t?.close());

it('LibreOffice reads every cell of the XLSX as the JSON has it', async (ctx) => {
  if (
    skipped(
      !existsSync(SOFFICE),
      'XLSX in LibreOffice',
      'cell by cell',
      `${SOFFICE} is not installed (apt-get install libreoffice-calc-nogui)`,
    )
  )
    return;
  const t = (ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400' } }));
  const org = await createOrg(t.db.sql);
  const { report } = await fixtureReport(t, org, { metrics: ['impressions', 'clicks', 'spend', 'cpa', 'ctr'] });
  const token = await getToken(t, await createClient(t.db.sql, org));
  const query = 'dateFrom=2026-01-01&dateTo=2026-02-28&groupBy=campaign';
  const data = await (await t.fetch(`/v1/reports/${report}/data?${query}`, bearer(token))).json();
  const dir = temporaryDir();
  try {
    const file = join(dir.path, 'export.xlsx');
    writeFileSync(
      file,
      new Uint8Array(await (await t.fetch(`/v1/reports/${report}/export.xlsx?${query}`, bearer(token))).arrayBuffer()),
    );
    // Field 9 false: the cells' values, not their text as shown (2 decimals for money).
    const filter = 'csv:Text - txt - csv (StarCalc):44,34,76,1,,1033,false,true,false,false,false';
    const out = spawnSync(
      SOFFICE,
      [
        '--headless',
        `-env:UserInstallation=file://${dir.path}/profile`,
        '--convert-to',
        filter,
        '--outdir',
        dir.path,
        file,
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    assert.is(out.status, 0, out.stderr);
    const lines = readFileSync(join(dir.path, 'export.csv'), 'utf8').trim().split(/\r?\n/);
    assert.is(lines.length, data.rows.length + 1);
    data.rows.forEach(
      (row: { dimensions: Record<string, string>; metrics: Record<string, number | null> }, i: number) => {
        const cells = lines[i + 1]
          .match(/("([^"]|"")*"|[^,]*)(,|$)/g)!
          .map((c) => c.replace(/,$/, '').replace(/^"|"$/g, '').replace(/""/g, '"'));
        const values = cells.slice(4, 4 + data.metrics.length).map((c) => (c === '' ? null : Number(c)));
        assert.equal(
          values,
          data.metrics.map((m: string) => row.metrics[m]),
          `row ${i + 1}: ${lines[i + 1]}`,
        );
        assert.is(cells[1], row.dimensions.campaignName);
      },
    );
  } finally {
    dir.remove();
  }
});

it.run();
