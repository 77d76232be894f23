import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DIMENSION_KEYS } from '../src/report/dimensions.ts';
import { readCsv } from '../src/cli/csv.ts';
import { csvStream } from '../src/report/formats/csv.ts';
import { xlsxStream } from '../src/report/formats/xlsx.ts';
import { connectionOptionsOf, exclusivePool, type ExclusivePool } from '../src/store/exclusive.ts';
import { testApp, type TestApp } from './support/app.ts';
import { onPostgres, LOCK_FACTS } from './support/database.ts';
import { bearer, cli, createClient, getToken, tenant } from './support/fixtures.ts';
import { fixtureReport, HEADER, importCsv } from './support/importFixture.ts';
import { hasOpenpyxl, readXlsx } from './support/xlsx.ts';
import { skipped } from './support/skip.ts';

type Ctx = { t: TestApp; org: string; token: string; report: string; google: string; meta: string };
const it = suite<Ctx>('exports');
it.before(async (ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400' } });
  const { org, token } = await tenant(ctx.t);
  Object.assign(ctx, { org, token }, await fixtureReport(ctx.t, org));
  // Names that CSV and spreadsheets find hard (the fixture has a comma and quotes): a newline, and a would-be formula.
  await importCsv(
    ctx.t,
    org,
    `${HEADER}\n2026-01-08,google-ads,G1,Google US,USD,C4,"Two\nlines",K4,"=HYPERLINK(""http://x"")",image,10,1,1,0,0,0,0`,
  );
});
it.after(async (ctx) => ctx.t.close());

const Q = 'dateFrom=2026-01-01&dateTo=2026-01-31';
const get = (ctx: Ctx, path: string, headers: Record<string, string> = {}) =>
  ctx.t.fetch(`/v1/reports/${ctx.report}/${path}`, { headers: { authorization: `Bearer ${ctx.token}`, ...headers } });

async function csvOf(res: Response) {
  assert.is(res.status, 200);
  return [...readCsv(await res.text())].map((r) => r.fields);
}

it('CSV: text/csv, an attachment with a safe file name, a header of dimension keys then metric names', async (ctx) => {
  const res = await get(ctx, `export.csv?${Q}&groupBy=campaign`);
  assert.is(res.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.is(res.headers.get('content-disposition'), 'attachment; filename="Fixture-2026-01-01-2026-01-31.csv"');
  assert.match(res.headers.get('etag')!, /^W\//);
  const [header] = await csvOf(res);
  assert.equal(header, [
    'campaignId',
    'campaignName',
    'adAccountId',
    'externalId',
    'impressions',
    'clicks',
    'spend',
    'conversions',
    'cpa',
    'ctr',
    'video_views',
  ]);
});

/** The CSV export of query holds the data endpoint's rows for it, cell for cell, in its order. */
async function csvEqualsData(ctx: Ctx, query: string) {
  const data = await (await get(ctx, `data?${query}`)).json();
  const [header, ...rows] = await csvOf(await get(ctx, `export.csv?${query}`));
  assert.ok(data.rows.length > 0, `${query} has rows`);
  const metrics = data.metrics as string[];
  const dims = header.slice(0, header.length - metrics.length);
  assert.equal(header.slice(dims.length), metrics);
  const expected = data.rows.map(
    (row: { dimensions: Record<string, string>; metrics: Record<string, number | null> }) => [
      ...dims.map((key) => (/^[=+\-@]/.test(row.dimensions[key]) ? `'${row.dimensions[key]}` : row.dimensions[key])),
      ...metrics.map((m) => (row.metrics[m] === null ? '' : String(row.metrics[m]))),
    ],
  );
  assert.equal(rows, expected);
}

for (const grouping of ['total', 'campaign', 'month', 'ad-account', 'creative', 'video']) {
  it(`CSV rows equal the data endpoint's rows (${grouping})`, (ctx) =>
    csvEqualsData(ctx, `${Q}&groupBy=${grouping}${grouping === 'campaign' ? '&sort=clicks&sortDesc=true' : ''}`));
}

// Under 28 days the creative groupings join first; a CSV export whose accounts are all in the report's currency reads
// report-data-creative-one-currency, the others report-data-creative (rows.ts).
for (const [grouping, accounts] of [
  ['creative', 'all'],
  ['creative', 'google'],
  ['video', 'all'],
  ['creative', 'meta'],
] as const) {
  it(`a short range's CSV rows equal the data endpoint's rows (${grouping}, ${accounts} accounts)`, (ctx) =>
    csvEqualsData(
      ctx,
      `dateFrom=2026-01-03&dateTo=2026-01-09&groupBy=${grouping}${accounts === 'all' ? '' : `&adAccountIds=${ctx[accounts]}`}`,
    ));
}

it('a name with a comma, quotes and a newline survives; a formula is neutralised; null is an empty cell', async (ctx) => {
  const [, ...rows] = await csvOf(await get(ctx, `export.csv?${Q}&groupBy=campaign`));
  const names = rows.map((r) => r[1]);
  assert.ok(names.includes('Alpha, "the" first'));
  assert.ok(names.includes('Two\nlines'));
  const [, ...creatives] = await csvOf(await get(ctx, `export.csv?${Q}&groupBy=creative`));
  assert.ok(
    creatives.some((r) => r[1] === `'=HYPERLINK("http://x")`),
    'formula neutralised',
  );
  const gamma = rows.find((r) => r[1] === 'Gamma search')!;
  assert.is(gamma[8], '', 'cpa of a campaign without conversions');
});

it('XLSX opens with an independent reader: one sheet, display names, numbers as numbers, the same values', async (ctx) => {
  if (
    skipped(
      !hasOpenpyxl(),
      'exports',
      'XLSX with an independent reader',
      'needs python3-openpyxl (apt-get install python3-openpyxl)',
    )
  )
    return;
  const query = `${Q}&groupBy=campaign`;
  const res = await get(ctx, `export.xlsx?${query}`);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
  assert.match(res.headers.get('content-disposition')!, /filename="Fixture-2026-01-01-2026-01-31\.xlsx"/);
  const book = readXlsx(new Uint8Array(await res.arrayBuffer()));
  const data = await (await get(ctx, `data?${query}`)).json();
  assert.is(book.sheets, 1);
  const [header, ...rows] = book.rows;
  assert.equal(header, [
    'Campaign ID',
    'Campaign',
    'Ad account ID',
    'External ID',
    'Impressions',
    'Clicks',
    'Spend',
    'Conversions',
    'Cost per acquisition',
    'Click-through rate',
    'Video views',
  ]);
  assert.is(rows.length, data.rows.length);
  data.rows.forEach(
    (row: { dimensions: Record<string, string>; metrics: Record<string, number | null> }, i: number) => {
      assert.is(rows[i][1], row.dimensions.campaignName);
      for (const [j, m] of (data.metrics as string[]).entries())
        assert.is(rows[i][4 + j], row.metrics[m], `${m} of row ${i}`);
    },
  );
});

it('exports need reports:export and cost twice the data', async (ctx) => {
  const client = await createClient(ctx.t.db.sql, ctx.org);
  const dataOnly = await getToken(ctx.t, client, 'reports:data');
  const refused = await ctx.t.fetch(`/v1/reports/${ctx.report}/export.csv?${Q}`, bearer(dataOnly));
  assert.is(refused.status, 403);
  assert.match((await refused.json()).detail, 'reports:export');
  const remaining = (res: Response) => Number(/r=(\d+)/.exec(res.headers.get('ratelimit')!)![1]);
  const a = remaining(await get(ctx, `data?${Q}`));
  const b = remaining(await get(ctx, `export.csv?${Q}`));
  const c = remaining(await get(ctx, `export.xlsx?${Q}`));
  assert.equal([a - b, b - c], [4, 4], 'two ad accounts: data 2, export 4');
});

it('the same problem documents as data for the same faults', async (ctx) => {
  for (const path of [`export.csv?dateFrom=2026-02-30&dateTo=2026-03-01`, `export.xlsx?${Q}&groupBy=segment`]) {
    const res = await get(ctx, path);
    assert.is(res.status, 400);
    assert.match((await res.json()).type, /\/invalid-parameter$/);
  }
  const missing = await ctx.t.fetch(`/v1/reports/${crypto.randomUUID()}/export.csv?${Q}`, bearer(ctx.token));
  assert.is(missing.status, 404);
});

it('a weak ETag of its own, and 304 with the charge refunded', async (ctx) => {
  const first = await get(ctx, `export.csv?${Q}`);
  await first.arrayBuffer();
  const etag = first.headers.get('etag')!;
  assert.is.not(etag, (await get(ctx, `data?${Q}`)).headers.get('etag'), 'csv and json differ');
  const remaining = async () => (await (await ctx.t.fetch('/v1/me', bearer(ctx.token))).json()).quota.remaining;
  const before = await remaining();
  const again = await get(ctx, `export.csv?${Q}`, { 'if-none-match': etag });
  assert.is(again.status, 304);
  assert.is(await again.text(), '');
  assert.is(await remaining(), before, 'the 304 cost nothing');
});

for (const ext of ['csv', 'xlsx']) {
  it(`a client that disconnects mid-download stops the query (${ext})`, async (ctx) => {
    if (
      skipped(
        !onPostgres,
        'exports',
        `a client that disconnects mid-download stops the query (${ext})`,
        'needs PostgreSQL: only PostgreSQL can cancel a running query',
      )
    )
      return;
    const blocker = await ctx.t.db.sql.reserve();
    try {
      await blocker`begin`;
      await blocker.unsafe(LOCK_FACTS);
      const res = await get(ctx, `export.${ext}?${Q}&groupBy=campaign`);
      assert.is(res.status, 200);
      const reader = res.body!.getReader();
      if (ext === 'csv') await reader.read(); // the header row
      const pending = reader.read(); // waits on the blocked query
      await new Promise((r) => setTimeout(r, 200));
      const running = async () =>
        (
          await ctx.t.db
            .sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and (query like '%report\_%facts(%' or query like '/* report-data-%') and state = 'active'`
        )[0].n;
      assert.is(await running(), 1, 'the export query is waiting');
      await reader.cancel();
      await pending.catch(() => {});
      await new Promise((r) => setTimeout(r, 300));
      assert.is(await running(), 0, 'the query is gone');
    } finally {
      await blocker`rollback`;
      blocker.release();
    }
  });
}

it('the deadline cuts an export whose query sits between fetches, not only one that is running', async () => {
  const t = await testApp({ env: { REQUEST_DEADLINE_MS: '1000' } });
  try {
    const { org, token } = await tenant(t);
    // More one-day rows than the connection buffers: the client reads the first chunk, then stops past the deadline.
    // The COPY then waits on its socket, where PostgreSQL does not see a cancel: only a check between chunks can cut
    // the stream, and the COPY must be read to its end for the connection to serve again.
    const { report, day } = await oneDayReport(t, org, 30_000);
    // CSV: its rows are read only as the client reads (an XLSX this small is written whole into the archive's buffers).
    const res = await t.fetch(
      `/v1/reports/${report}/export.csv?dateFrom=${day}&dateTo=${day}&groupBy=creative`,
      bearer(token),
    );
    assert.is(res.status, 200);
    const reader = res.body!.getReader();
    await reader.read();
    await new Promise((r) => setTimeout(r, 1500));
    let cut = false;
    try {
      for (;;) if ((await reader.read()).done) break;
    } catch {
      cut = true;
    }
    assert.ok(cut, 'the download is cut at the deadline, not finished late');
    // The connection the cut export held is back for the next request.
    assert.is(
      (await t.fetch(`/v1/reports/${report}/data?dateFrom=${day}&dateTo=${day}&groupBy=total`, bearer(token))).status,
      200,
    );
  } finally {
    await t.close();
  }
});

it('an export read in gulps leaves its connection serving the next query', async () => {
  // One connection, so the next query takes the one the export used. The client waits, then reads all at once: the
  // COPY's stream fills while its last rows and its end arrive together, and postgres.js 3.4 then left the socket
  // paused (porsager/postgres#499): the next query never heard its answer and timed out.
  const t = await testApp({ max: 1, env: { REQUEST_DEADLINE_MS: '5000' } });
  try {
    const { org, token } = await tenant(t);
    const { report, day } = await oneDayReport(t, org, 3000);
    const range = `dateFrom=${day}&dateTo=${day}`;
    for (let i = 0; i < 4; i++) {
      const res = await t.fetch(`/v1/reports/${report}/export.csv?${range}&groupBy=creative`, bearer(token));
      const reader = res.body!.getReader();
      const lineEnds = (bytes: Uint8Array) => bytes.filter((b) => b === 0x0a).length;
      let lines = lineEnds((await reader.read()).value!);
      await new Promise((r) => setTimeout(r, 150));
      for (let part = await reader.read(); !part.done; part = await reader.read()) lines += lineEnds(part.value);
      assert.is(lines, 1 + 3000, 'the header and every row arrived');
      const next = await t.fetch(`/v1/reports/${report}/data?${range}&groupBy=total`, bearer(token));
      assert.is(next.status, 200, `the query after export ${i + 1}`);
    }
  } finally {
    await t.close();
  }
});

/** One ad account's one day of facts for `creatives` creatives, and a report over it. */
async function oneDayReport(t: TestApp, org: string, creatives: number) {
  await cli(
    t.db.sql,
    ['generate', '--org', org, '--accounts', '1', '--campaigns', '2', '--creatives', String(creatives), '--days', '1'],
    t.clock.now,
  );
  const [{ day }] = await t.db.sql`select max(day)::text as day from facts where organization_id = ${org}`;
  const [report] = await t.db.sql`insert into reports (organization_id, name, kind, currency, metrics)
    values (${org}, 'One day', 'standard', 'USD', ${['impressions', 'spend']}) returning id`;
  await t.db.sql`insert into report_ad_accounts (organization_id, report_id, ad_account_id)
    select ${org}, ${report.id}, id from ad_accounts where organization_id = ${org}`;
  return { report: report.id as string, day: day as string };
}

/** An endless source of rows, counting what the export has taken from it. */
function endlessRows() {
  const source = { taken: 0, rows: batches() };
  async function* batches() {
    for (let b = 0; ; b++) {
      // The creative grouping's cells: creativeId, creativeName, campaignId, then impressions and spend.
      const batch = Array.from({ length: 5000 }, (_, i) => [
        `${b}-${i}-${Math.random()}`,
        `Creative ${b}/${i}`,
        'c',
        Math.floor(Math.random() * 1e6),
        Math.random() * 1000,
      ]);
      source.taken += batch.length;
      yield batch;
    }
  }
  return source;
}

for (const [ext, write] of [
  ['csv', csvStream],
  ['xlsx', xlsxStream],
] as const) {
  it(`a client that stops reading holds the ${ext} export back: the rows taken stay bounded`, async () => {
    const source = endlessRows();
    const stream = write(
      { keys: DIMENSION_KEYS.creative, metrics: ['impressions', 'spend'], displayNames: new Map(), rows: source.rows },
      { done() {}, cancel() {} },
    );
    const reader = stream.getReader();
    await reader.read();
    // The pipeline fills its buffers, then stops taking rows: wait until a half-second passes with none taken (on a
    // loaded machine filling takes longer than a fixed wait); without backpressure that never comes.
    let stalled = -1;
    for (let i = 0; i < 20 && source.taken !== stalled; i++) {
      stalled = source.taken;
      await new Promise((r) => setTimeout(r, 500));
    }
    assert.is(source.taken, stalled, 'nothing more is taken while nobody reads');
    // What the archive buffers (about 1 MB each way, compressed) is all that runs ahead of the reader.
    assert.ok(stalled <= 100_000, `${stalled} rows taken ahead of the reader`);
    await reader.cancel();
  });
}

it.run();

// ---

const filters = suite<Ctx>('exports: the name filter');
filters.before(async (ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400' } });
  const { org, token } = await tenant(ctx.t);
  Object.assign(ctx, { org, token }, await fixtureReport(ctx.t, org));
  // Names holding what SQL text would read: quotes, a backslash, a parameter marker, comment markers, a percent.
  await importCsv(
    ctx.t,
    org,
    `${HEADER}\n2026-01-09,google-ads,G1,Google US,USD,C5,O'Brien \\ $6 */ -- 100%,K5,O'Brien's cut,image,10,1,1,0,0,0,0`,
  );
});
filters.after(async (ctx) => ctx.t.close());

for (const [grouping, filter] of [
  ['campaign', "O'Brien"],
  ['campaign', '\\ $6'],
  ['campaign', '*/ --'],
  ['campaign', '100%'],
  ['creative', "'s cut"],
  ['creative', "o'b"],
]) {
  filters(
    `nameFilter ${JSON.stringify(filter)}: the CSV export keeps exactly the data endpoint's rows (${grouping})`,
    (ctx) => csvEqualsData(ctx, `${Q}&groupBy=${grouping}&nameFilter=${encodeURIComponent(filter)}`),
  );
}

filters('filtered answers at once each read their own values', async (ctx) => {
  // Each binds its values to settings of its own transaction (Lent.bind); the embedded database serves every
  // connection from one session, so one answer's values must not be another's.
  const queries = [`nameFilter=${encodeURIComponent("O'Brien")}`, 'filter=campaignName=@a', 'filter=spend>0.5'].map(
    (filter) => `${Q}&groupBy=campaign&${filter}`,
  );
  const alone = await Promise.all(queries.map(async (q) => (await get(ctx, `data?${q}`)).text()));
  assert.ok(new Set(alone).size === queries.length, 'three different answers');
  // Four at once: as many as a client may run (docs/decisions.md §13), and as many connections as embedded lends.
  for (let round = 0; round < 3; round++) {
    const together = await Promise.all(
      Array.from({ length: 4 }, async (_, i) => (await get(ctx, `data?${queries[(i + round) % 3]}`)).text()),
    );
    for (const [i, body] of together.entries()) assert.is(body, alone[(i + round) % 3], queries[(i + round) % 3]);
  }
});

filters(
  "a client's filters are bound, never written into a statement's text, and the answer is still a binary COPY",
  async () => {
    const texts: string[] = [];
    const spied = new WeakSet<object>();
    let pool: ExclusivePool | undefined;
    const heavy: ExclusivePool = {
      async lend(signal, owner) {
        const lent = await pool!.lend(signal, owner);
        if (!spied.has(lent)) {
          spied.add(lent);
          const unsafe = lent.sql.unsafe.bind(lent.sql);
          lent.sql.unsafe = ((text: string, ...rest: never[]) => (
            texts.push(text), unsafe(text, ...rest)
          )) as typeof unsafe;
        }
        return lent;
      },
      giveBack: (lent, clean) => pool!.giveBack(lent, clean),
      close: () => pool!.close(),
      stats: () => pool!.stats(),
    };
    const t = await testApp({ env: { TOKEN_TTL_S: '86400' }, heavy });
    pool = exclusivePool(
      () => connectionOptionsOf(t.db.sql),
      2,
      async () => {},
      10_000,
    );
    try {
      const { org, token } = await tenant(t);
      const { report } = await fixtureReport(t, org);
      const filter = 'Alpha, "the';
      const res = await t.fetch(
        `/v1/reports/${report}/export.csv?${Q}&groupBy=campaign&nameFilter=${encodeURIComponent(filter)}`,
        bearer(token),
      );
      const [, ...rows] = await csvOf(res);
      assert.equal(
        rows.map((r) => r[1]),
        ['Alpha, "the" first'],
      );
      assert.ok(
        texts.some((text) => /report-data-campaign|from report_campaign_spans/.test(text)),
        "the export ran the grouping's query",
      );
      const unwritten = () => {
        for (const text of texts)
          assert.not.ok(
            /Alpha|\\x41\\x6c|0\.000123/i.test(text),
            `the filter is in no statement's text, as itself or escaped: ${text.slice(0, 80)}`,
          );
      };
      unwritten();
      assert.ok(
        texts.some((text) => /\bcopy \(/.test(text)),
        'the filtered export is a COPY',
      );
      // The data endpoint's filters (docs/decisions.md §6) too: a name's text and a metric's number.
      texts.length = 0;
      const data = await t.fetch(
        `/v1/reports/${report}/data?${Q}&groupBy=campaign&filter=campaignName=@${encodeURIComponent(filter)}` +
          '&filter=spend>0.000123',
        bearer(token),
      );
      assert.equal(
        (await data.json()).rows.map((r: { dimensions: { campaignName: string } }) => r.dimensions.campaignName),
        ['Alpha, "the" first'],
      );
      assert.ok(
        texts.some((text) => /\bcopy \(/.test(text)),
        'the filtered answer is a COPY',
      );
      unwritten();
    } finally {
      await t.close();
      await pool.close();
    }
  },
);

filters.run();
