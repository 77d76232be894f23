// CONTRIBUTING.md, "Adding a base metric", as a newcomer follows it: in a scratch copy of the checkout, a metric is
// added to the declaration (src/dataModel.ts) and `npm run sql:lattice` run; the copy then migrates a database the
// code before it filled with facts, imports the facts again with the new column, and reads it back, summed, in every
// grouping, interval, currency, filter, summary, comparison, both exports and the catalogue. Its numbers are clicks',
// so every answer of it must be clicks' answer.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { processDatabase } from './support/database.ts';
import { csvRecords } from './support/csv.ts';
import { HEADER } from './support/importFixture.ts';

const it = suite('adding a base metric');

const LINES = [
  '2026-01-05,meta-ads,M1,Meta EU,EUR,C1,Alpha,K1,Alpha video,video,1000,50,100,5,200,400,100',
  '2026-01-06,meta-ads,M1,Meta EU,EUR,C1,Alpha,K1,Alpha video,video,900,40,80,4,150,300,90',
  '2026-01-21,meta-ads,M1,Meta EU,EUR,C1,Alpha,K5,Alpha image,image,300,7,14,1,20,0,0',
  '2026-01-05,google-ads,G1,Google US,USD,C2,Beta,K2,Beta text,text,3000,30,60,0,0,0,0',
  '2026-02-10,google-ads,G1,Google US,USD,C2,Beta,K2,Beta text,text,1000,10,20,2,50,0,0',
  '2026-02-11,google-ads,G1,Google US,USD,C3,Gamma,K3,Gamma image,image,500,3,1,0,0,0,0',
];
/** The facts, and the same with a leads column holding each line's clicks. */
const before = [HEADER, ...LINES].join('\n');
const after = [`${HEADER},leads`, ...LINES.map((line) => `${line},${line.split(',')[11]}`)].join('\n');

const LEADS = `  {
    name: 'leads',
    displayName: 'Leads',
    kind: 'count',
    conversionDerived: false,
    unit: 'leads',
    description: 'Leads a form on the platform collected.',
  },
] as const satisfies readonly BaseMetricDeclaration[];`;

it('a metric added to the declaration is loaded and answered everywhere, over facts loaded before it', async () => {
  const root = resolve('.');
  const scratch = mkdtempSync(join(tmpdir(), 'readout-metric-'));
  const database = await processDatabase();
  try {
    for (const file of execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { encoding: 'utf8' })
      .split('\n')
      .filter((f) => f && !f.startsWith('node_modules/'))) {
      mkdirSync(dirname(join(scratch, file)), { recursive: true });
      cpSync(join(root, file), join(scratch, file));
    }
    symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'));
    writeFileSync(join(scratch, 'before.csv'), before);
    writeFileSync(join(scratch, 'after.csv'), after);
    const node = (cwd: string, args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', ...args], {
        cwd,
        env: database.env,
        encoding: 'utf8',
        timeout: 120_000,
      });

    const loaded = node(root, ['test/support/metricProbe.ts', 'load', join(scratch, 'before.csv')]);
    assert.is(loaded.status, 0, loaded.stderr);

    // The newcomer's edit: one entry in the declaration, then the generator.
    const model = join(scratch, 'src/dataModel.ts');
    const declared = readFileSync(model, 'utf8');
    const end = '] as const satisfies readonly BaseMetricDeclaration[];';
    assert.ok(declared.includes(end));
    writeFileSync(model, declared.replace(end, LEADS));
    const generated = node(scratch, ['scripts/lattice.ts']);
    assert.is(generated.status, 0, generated.stderr);

    const read = node(scratch, ['test/support/metricProbe.ts', 'read', join(scratch, 'after.csv')]);
    assert.is(read.status, 0, read.stderr);
    const answers: { query: string; status: number; body: string }[] = JSON.parse(read.stdout);
    let rows = 0;
    for (const { query, status, body } of answers) {
      assert.is(status, 200, `${query}: ${body}`);
      if (query.includes('/data?')) {
        const answer = JSON.parse(body);
        for (const row of [...answer.rows, ...(answer.summary ? [answer.summary] : [])])
          for (const metrics of [row.metrics, row.compare?.metrics].filter(Boolean)) {
            assert.is(metrics.leads, metrics.clicks, query);
            rows++;
          }
      } else if (query.includes('.csv')) {
        const [header, ...lines] = csvRecords(body);
        for (const line of lines) assert.is(line[header.indexOf('leads')], line[header.indexOf('clicks')], query);
      } else if (query === '/v1/metrics') {
        const leads = JSON.parse(body).data.find((m: { name: string }) => m.name === 'leads');
        assert.equal([leads?.system, leads?.kind], [true, 'count']);
      }
    }
    assert.ok(rows > 150, `${rows} rows compared`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    await database.remove();
  }
});

it.run();
