// A long data answer is sent in pieces as they are written (src/report/formats/json.ts): a piece handed on at once is
// collected young, while pieces of 5,000 rows outlived the young generation and made the server collect its whole
// heap every few answers (BENCHMARKS.md, "JSON in pieces"). A short answer is still sent whole, a problem document
// if it fails.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { testApp, type TestApp } from './support/app.ts';
import { bearer, cli, createClient, createOrg, getToken } from './support/fixtures.ts';

const it = suite<{ t: TestApp; token: string; report: string }>('JSON answers in pieces');
it.before(async (ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400' } });
  const org = await createOrg(ctx.t.db.sql);
  await cli(
    ctx.t.db.sql,
    ['generate', '--org', org, '--accounts', '1', '--campaigns', '5', '--creatives', '2500', '--days', '1'],
    ctx.t.clock.now,
  );
  const [report] = await ctx.t.db.sql`
    insert into reports (organization_id, name, kind, currency, metrics, groupings)
    values (${org}, 'Long', 'standard', 'USD', ${['impressions', 'clicks']}, ${['creative', 'campaign']})
    returning id`;
  await ctx.t.db.sql`
    insert into report_ad_accounts (organization_id, report_id, ad_account_id)
    select organization_id, ${report.id}, id from ad_accounts where organization_id = ${org}`;
  ctx.report = report.id;
  ctx.token = await getToken(ctx.t, await createClient(ctx.t.db.sql, org));
});
it.after(async (ctx) => ctx.t.close());

/** The body's chunks as they come, each as the number of rows it holds. */
async function rowsPerChunk(response: Response): Promise<number[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const counts: number[] = [];
  let text = '';
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    const chunk = decoder.decode(next.value, { stream: true });
    counts.push(chunk.split('{"dimensions":').length - 1);
    text += chunk;
  }
  assert.is(JSON.parse(text).rows.length, total(counts));
  return counts;
}

const total = (counts: number[]) => counts.reduce((sum, n) => sum + n, 0);

const dataPath = (t: TestApp, report: string, groupBy: string) => {
  const day = new Date(t.clock.now - 86_400_000).toISOString().slice(0, 10);
  return `/v1/reports/${report}/data?dateFrom=${day}&dateTo=${day}&groupBy=${groupBy}`;
};

it('an answer of 2,500 rows is streamed in pieces as they are read', async ({ t, token, report }) => {
  const res = await t.fetch(dataPath(t, report, 'creative'), bearer(token));
  assert.is(res.status, 200);
  const counts = await rowsPerChunk(res);
  assert.is(total(counts), 2500);
  // The head goes first, alone; then pieces of at least 500 rows, each ending where a chunk of the COPY does.
  assert.is(counts[0], 0);
  assert.ok(counts.filter((n) => n > 0).length >= 3, `chunks of ${counts.join(', ')} rows`);
});

it('an answer of up to 1,000 rows is sent whole, in one chunk', async ({ t, token, report }) => {
  const res = await t.fetch(dataPath(t, report, 'campaign'), bearer(token));
  assert.is(res.status, 200);
  assert.equal(await rowsPerChunk(res), [5]);
});

it.run();
