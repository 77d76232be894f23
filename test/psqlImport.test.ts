// docs/commands.md, "From another PostgreSQL": the view and the `psql \copy … | readout import --file -` pipeline, run
// as the document writes them, load a warehouse table's last seven days.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { freshDatabaseUrl, onPostgres, processDatabase } from './support/database.ts';
import { skipped } from './support/skip.ts';

const it = suite('psqlImport');

/** The first fenced block of `lang` after the marker naming this test. */
function block(lang: string): string {
  const doc = readFileSync('docs/commands.md', 'utf8');
  const from = doc.indexOf('<!-- test/psqlImport.test.ts');
  assert.ok(from > 0, 'the marker is in docs/commands.md');
  const match = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(doc.slice(from));
  assert.ok(match, `a ${lang} block follows the marker`);
  return match[1];
}

it("psql's \\copy piped into readout import loads the view's rows, and only the window asked for", async () => {
  const noPsql = spawnSync('psql', ['--version']).status !== 0;
  if (skipped(!onPostgres || noPsql, 'psqlImport', 'psql into import', 'needs TEST_DATABASE_URL and psql')) return;
  const warehouse = await freshDatabaseUrl();
  const target = await processDatabase();
  const sql = postgres(warehouse.url, { max: 1, onnotice: () => {} });
  try {
    await sql`create table ad_stats (
      day date, network text, account_id text, account_name text, currency text, campaign_id text,
      campaign_name text, ad_id text, ad_name text, ad_format text, impressions bigint, clicks bigint, cost numeric,
      conversions bigint, revenue numeric, video_views bigint, video_completions bigint)`;
    await sql`insert into ad_stats values
      (current_date - 1, 'meta-ads', 'act_1', 'Meta EU', 'EUR', 'c_1', 'Prospecting, EU', 'ad_1', 'Hero "video"',
       'video', 1000, 50, 100.25, 5, 200.5, 400, 100),
      (current_date - 2, 'meta-ads', 'act_1', 'Meta EU', 'EUR', 'c_1', 'Prospecting, EU', 'ad_1', 'Hero "video"',
       'video', 900, 40, 80, 4, 150, 300, 90),
      (current_date - 30, 'meta-ads', 'act_1', 'Meta EU', 'EUR', 'c_1', 'Prospecting, EU', 'ad_1', 'Hero "video"',
       'video', 1, 1, 1, 1, 1, 1, 1)`;
    await sql.unsafe(block('sql'));

    const env = { ...target.env, WAREHOUSE_URL: warehouse.url };
    const cli = (args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { env, encoding: 'utf8' });
    const made = cli(['org', 'create', '--name', 'Acme', '--json']);
    assert.is(made.status, 0, made.stderr);
    const org = JSON.parse(made.stdout).organizationId;
    const script = `set -o pipefail\nreadout() { "${process.execPath}" --import tsx src/cli.ts "$@"; }\n${block('sh')}`;
    const piped = spawnSync('bash', ['-c', script], { env: { ...env, ORG: org }, encoding: 'utf8', timeout: 120_000 });
    assert.is(piped.status, 0, piped.stderr);
    assert.match(piped.stdout, /^2 fact rows imported into /m, piped.stdout + piped.stderr);

    const loaded = postgres(target.env.DATABASE_URL, { max: 1, onnotice: () => {} });
    try {
      const [row] = await loaded`select count(*)::int as n, sum(clicks)::int as clicks, sum(spend)::float8 as spend
        from facts`;
      assert.equal(row, { n: 2, clicks: 90, spend: 180.25 });
      const [names] = await loaded`select c.name as campaign, r.name as creative
        from campaigns c join creatives r on r.campaign_id = c.id`;
      assert.equal(names, { campaign: 'Prospecting, EU', creative: 'Hero "video"' });
    } finally {
      await loaded.end();
    }
  } finally {
    await sql.end();
    await warehouse.drop();
    await target.remove();
  }
});

it.run();
