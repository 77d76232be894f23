// A heavy answer gives the event loop back between its chunks (src/http/turn.ts, docs/decisions.md §13): chunks a
// COPY or a cursor has already delivered would otherwise be written one after another in one turn, while other
// requests' I/O waits. Timings are the bench's (BENCHMARKS.md, "fair use"); this checks the turns themselves.
import { once } from 'node:events';
import { connect, createServer, type AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { testApp, type TestApp } from './support/app.ts';
import { bearer, cli, createClient, createOrg, getToken } from './support/fixtures.ts';
import { nextTurn } from '../src/http/turn.ts';

const it = suite<{ t: TestApp; token: string; report: string }>('heavy answers yield');
it.before(async (ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400' } });
  const org = await createOrg(ctx.t.db.sql);
  await cli(
    ctx.t.db.sql,
    ['generate', '--org', org, '--accounts', '1', '--campaigns', '20', '--creatives', '20000', '--days', '1'],
    ctx.t.clock.now,
  );
  const yaml = JSON.stringify({
    metrics: [{ name: 'engagement', kind: 'percent', formula: '(clicks + video_views) / impressions * 100' }],
    reports: [
      {
        name: 'Big',
        kind: 'standard',
        currency: 'USD',
        adAccounts: ['meta-ads/gen-1'],
        metrics: ['impressions', 'clicks', 'spend', 'engagement'],
        groupings: ['creative'],
      },
    ],
  });
  const { runCommand } = await import('../src/cli/run.ts');
  const out = await runCommand(['apply', '--org', org, '--file', 'r.yaml', '--json'], {
    sql: ctx.t.db.sql,
    now: ctx.t.clock.now,
    progress: () => {},
    readText: async () => yaml,
  });
  assert.is(out.code, 0, out.stderr);
  ctx.token = await getToken(ctx.t, await createClient(ctx.t.db.sql, org));
  ctx.report = (await ctx.t.db.sql`select id from reports where organization_id = ${org}`)[0].id;
});
it.after(async (ctx) => ctx.t.close());

/** Reads a whole answer as fast as it comes, counting its chunks and the event loop's turns meanwhile. */
async function turnsWhileReading(response: Response) {
  let turns = 0;
  let reading = true;
  const tick = () => {
    turns++;
    if (reading) setImmediate(tick);
  };
  setImmediate(tick);
  let chunks = 0;
  const reader = response.body!.getReader();
  for (;;) {
    const { done } = await reader.read();
    if (done) break;
    chunks++;
  }
  reading = false;
  return { chunks, turns };
}

// A COPY's chunks arrive buffered, so only the CSV export would run them in one turn without the yield (a data answer
// or an XLSX reads its cursor batches over the socket, a turn each anyway): the one shape a test here can fail on.
for (const [what, path] of [
  ['a sorted CSV export with a custom metric', 'export.csv?groupBy=creative&sort=engagement&sortDesc=true'],
] as const) {
  it(`${what}: the event loop turns between its chunks`, async ({ t, token, report }) => {
    const day = new Date(t.clock.now - 86_400_000).toISOString().slice(0, 10);
    const res = await t.fetch(`/v1/reports/${report}/${path}&dateFrom=${day}&dateTo=${day}`, bearer(token));
    assert.is(res.status, 200);
    const { chunks, turns } = await turnsWhileReading(res);
    assert.ok(chunks >= 4, `${chunks} chunks`);
    assert.ok(turns >= chunks / 2, `${turns} turns for ${chunks} chunks`);
  });
}

// Sixteen heavy answers each yielding after every chunk once let all sixteen chunks run in one turn, and a cheap
// request's every step waited behind them all: now the waiting chunks go one a turn, so I/O waits behind one.
it('many heavy answers at once take the event loop one chunk a turn, and I/O is heard between any two', async () => {
  const echo = createServer((socket) => socket.on('error', () => {}).on('data', (bytes) => socket.write(bytes)));
  echo.listen(0, '127.0.0.1');
  await once(echo, 'listening');
  const client = connect((echo.address() as AddressInfo).port, '127.0.0.1');
  await once(client, 'connect');
  let running = true;
  let since = 0;
  let most = 0;
  let heard = 0;
  client.on('data', () => {
    heard++;
    most = Math.max(most, since);
    since = 0;
    if (running) client.write('x');
  });
  client.write('x');
  const heavy = Array.from({ length: 10 }, async () => {
    for (let chunk = 0; chunk < 30; chunk++) {
      await nextTurn();
      since++;
    }
  });
  await Promise.all(heavy);
  running = false;
  client.destroy();
  echo.close();
  assert.ok(heard >= 10, `${heard} round trips heard`);
  assert.ok(most <= 2, `${most} chunks ran between two round trips`);
});

it.run();
