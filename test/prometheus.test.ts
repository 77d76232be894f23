// Prometheus metrics (METRICS_PORT): requests by route and status, latency by route, quota refusals by reason, rows
// sent, the heavy pool, process metrics; counted after known traffic through the Fetch handler, and scraped from a
// real server's own port (never the API's).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createCounters } from '../src/serve/prometheus.ts';
import { testApp } from './support/app.ts';
import { bearer, cli, tenant } from './support/fixtures.ts';
import { fixtureReport } from './support/importFixture.ts';
import { startServer, temporaryDir } from './support/server.ts';

const it = suite('metrics');

/** The value of one sample of the Prometheus text, by name and labels as written. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

it('counts what the app answered: routes by pattern and status, latency, refusals by reason, rows of an export', async () => {
  const counts = createCounters();
  const t = await testApp({ counters: counts, env: { TOKEN_TTL_S: '86400' } });
  try {
    const { token, org } = await tenant(t);
    const { report } = await fixtureReport(t, org);
    for (let i = 0; i < 3; i++) assert.is((await t.fetch('/v1/reports', bearer(token))).status, 200);
    assert.is((await t.fetch('/v1/reports/00000000-0000-0000-0000-000000000000', bearer(token))).status, 404);
    assert.is((await t.fetch('/v1/no-such-thing', bearer(token))).status, 404);
    const csv = await t.fetch(
      `/v1/reports/${report}/export.csv?groupBy=creative&dateFrom=2026-01-01&dateTo=2026-01-31`,
      bearer(token),
    );
    assert.is(csv.status, 200);
    const records = (await csv.text()).trim().split('\r\n').length - 1;
    assert.ok(records > 1);
    await cli(t.db.sql, ['plan', 'set', '--org', org, '--plan', 'business', '--budget', '1']);
    // The hour's budget is already spent: both are refused.
    for (let i = 0; i < 2; i++) assert.is((await t.fetch('/v1/metrics', bearer(token))).status, 429);

    const text = await counts.registry.metrics();
    assert.is(sample(text, 'readout_http_requests_total', 'route="/v1/reports",status="200"'), 3);
    assert.is(
      sample(text, 'readout_http_requests_total', 'route="/v1/reports/:id",status="404"'),
      1,
      'an id is not a label value',
    );
    assert.is(sample(text, 'readout_http_requests_total', 'route="unmatched",status="404"'), 1);
    assert.is(sample(text, 'readout_http_requests_total', 'route="/v1/reports/:id/export.csv",status="200"'), 1);
    assert.is(sample(text, 'readout_http_requests_total', 'route="/api/connect/token",status="200"'), 1);
    assert.is(sample(text, 'readout_http_request_duration_seconds_count', 'route="/v1/reports"'), 3);
    assert.is(sample(text, 'readout_http_request_duration_seconds_bucket', 'le="+Inf",route="/v1/reports"'), 3);
    assert.is(sample(text, 'readout_rows_sent_total', 'route="/v1/reports/:id/export.csv"'), records);
    assert.is(sample(text, 'readout_quota_refusals_total', 'reason="hourly-budget"'), 2);
    assert.is(sample(text, 'readout_db_pool_connections_in_use', 'pool="heavy"'), 0);
    assert.is(sample(text, 'readout_db_pool_waiting', 'pool="heavy"'), 0);
    assert.ok(sample(text, 'readout_db_pool_size', 'pool="heavy"')! >= 1);
    assert.ok(text.includes('readout_process_cpu_user_seconds_total'), 'process metrics');
    assert.not.ok(text.includes(report), 'no report id in any label');
  } finally {
    await t.close();
  }
});

it('METRICS_PORT serves GET /metrics on its own port; the API port has none', async () => {
  const dir = temporaryDir();
  const server = await startServer({ DATA_DIR: dir.path, DEMO: 'off', METRICS_PORT: '0' });
  try {
    const scrapeUrl = /"metrics":"([^"]+)"/.exec(server.output())![1];
    assert.match(scrapeUrl, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    assert.is.not(new URL(scrapeUrl).port, new URL(server.url).port);
    for (let i = 0; i < 2; i++) assert.is((await fetch(`${server.url}/v1/health`)).status, 200);
    assert.is((await fetch(`${server.url}/v1/reports`)).status, 401);
    assert.is((await fetch(`${server.url}/metrics`)).status, 404, 'not on the API port');
    const scrape = await fetch(scrapeUrl);
    assert.is(scrape.status, 200);
    assert.match(scrape.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
    const text = await scrape.text();
    assert.is(sample(text, 'readout_http_requests_total', 'route="/v1/health",status="200"'), 2);
    assert.is(sample(text, 'readout_http_requests_total', 'route="/v1/reports",status="401"'), 1);
    assert.is(sample(text, 'readout_http_requests_total', 'route="unmatched",status="404"'), 1);
    assert.ok(sample(text, 'readout_process_resident_memory_bytes')! > 0);
    assert.is((await fetch(scrapeUrl.replace('/metrics', '/other'))).status, 404);
    assert.is(await server.stop(), 0);
  } finally {
    await server.stop('SIGKILL');
    dir.remove();
  }
});

it.run();
