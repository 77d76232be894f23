// Run as a process by test/addMetric.test.ts, from a checkout of its own: `load` migrates the database the environment
// names (DATABASE_URL, else DATA_DIR) and loads the test's facts, as the code before a metric was added; `read` is run
// from a copy whose declaration holds one more (src/dataModel.ts), migrates the same database, loads the facts again
// with the new column, and prints as JSON every answer the test compares: each grouping, interval, currency, filter,
// summary and comparison, and both exports.
import { readFileSync } from 'node:fs';
import { createApp } from '../../src/app.ts';
import { runCommand } from '../../src/cli/run.ts';
import { loadConfig } from '../../src/config.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openDatabase } from '../../src/store/open.ts';

const [mode, file] = process.argv.slice(2);
const db = await openDatabase(
  process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : { dataDir: process.env.DATA_DIR },
);
const sql = db.sql;
const now = Date.parse('2026-03-10T10:00:00Z');
const run = async (argv: string[], text = '') => {
  const out = await runCommand([...argv, '--json'], {
    sql,
    now,
    progress: () => {},
    readText: async () => text,
    readStream: async function* () {
      yield new TextEncoder().encode(text);
    },
    copy: Boolean(process.env.DATABASE_URL),
  });
  if (out.code !== 0) throw new Error(`${argv.join(' ')}: ${out.stderr}`);
  return JSON.parse(out.stdout);
};

await migrate(sql);
const csv = readFileSync(file, 'utf8');
if (mode === 'load') {
  const { organizationId: org } = await run(['org', 'create', '--name', 'Probe', '--plan', 'enterprise']);
  await run(['import', '--org', org, '--file', 'facts.csv'], csv);
  await sql`insert into fx_rates (currency, day, usd_per_unit) values ('EUR', '2026-01-03', 1.1), ('EUR', '2026-01-20', 1.2)`;
  for (const currency of ['USD', 'EUR'])
    await sql`insert into reports (organization_id, name, kind, currency, metrics, groupings)
      values (${org}, ${currency}, 'standard', ${currency}, ${['clicks']},
              ${['total', 'campaign', 'month', 'ad-account', 'video', 'creative']})`;
  await sql`insert into report_ad_accounts (organization_id, report_id, ad_account_id)
    select r.organization_id, r.id, a.id from reports r join ad_accounts a on a.organization_id = r.organization_id
    where r.organization_id = ${org}`;
} else {
  const [{ id: org }] = await sql`select id from organizations where name = 'Probe'`;
  await run(['import', '--org', org, '--file', 'facts.csv'], csv);
  const client = await run([
    'client',
    'create',
    '--org',
    org,
    '--name',
    'probe',
    '--scopes',
    'reports:read reports:data reports:export',
    '--reports',
    'all',
    '--ad-accounts',
    'all',
  ]);
  const app = createApp({ sql, config: loadConfig({ BASE_URL: 'http://probe' }), clock: () => now, log: () => {} });
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: client.clientId,
    client_secret: client.clientSecret,
  });
  const tokenAnswer = await app(new Request('http://probe/api/connect/token', { method: 'POST', body: form }));
  const { access_token: token } = await tokenAnswer.json();
  const get = async (path: string) => {
    const res = await app(new Request(`http://probe${path}`, { headers: { authorization: `Bearer ${token}` } }));
    return { status: res.status, body: await res.text() };
  };
  const answers: { query: string; status: number; body: string }[] = [];
  const reports = await sql`select id, name from reports where organization_id = ${org} order by name`;
  const range = 'dateFrom=2026-01-01&dateTo=2026-02-28';
  for (const report of reports)
    for (const groupBy of ['total', 'campaign', 'month', 'ad-account', 'video', 'creative'])
      for (const shape of [
        '',
        '&interval=day',
        '&interval=week',
        '&summary=true',
        '&compareFrom=2026-01-01&compareTo=2026-01-10',
      ]) {
        if (groupBy === 'month' && shape.includes('interval')) continue;
        const query = `/v1/reports/${report.id}/data?${range}&groupBy=${groupBy}&metrics=clicks,leads${shape}`;
        answers.push({ query, ...(await get(query)) });
      }
  const filtered = `/v1/reports/${reports[0].id}/data?${range}&groupBy=creative&metrics=clicks,leads&sort=leads&filter=leads%3E%3D1`;
  answers.push({ query: filtered, ...(await get(filtered)) });
  for (const format of ['csv', 'xlsx']) {
    const query = `/v1/reports/${reports[0].id}/export.${format}?${range}&groupBy=campaign&metrics=clicks,leads`;
    const res = await get(query);
    answers.push({ query, status: res.status, body: format === 'csv' ? res.body : String(res.body.length) });
  }
  const catalogue = await get('/v1/metrics?pageSize=100');
  answers.push({ query: '/v1/metrics', ...catalogue });
  process.stdout.write(JSON.stringify(answers));
  await app.close();
}
await db.close();
