// Several processes on one database: a client revoked by the operator command is refused by every server within a
// second.
import { connect } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { skipped } from './support/skip.ts';
import type { ReservedSql } from 'postgres';
import { testApp, type TestApp } from './support/app.ts';
import { onPostgres, LOCK_FACTS } from './support/database.ts';
import { cli, createClient, createOrg, tenant } from './support/fixtures.ts';
import { fixtureReport } from './support/importFixture.ts';
import { command, run, startServer, tokenFrom, type RunningServer } from './support/server.ts';
import { spawn } from 'node:child_process';

const it = suite('processes');

it('a client revoked through `readout client revoke` is refused by two servers within one second', async () => {
  const t = await testApp();
  const servers: RunningServer[] = [];
  try {
    const org = await createOrg(t.db.sql);
    const client = await createClient(t.db.sql, org);
    const env = { DATABASE_URL: t.db.url, BASE_URL: 'http://readout.test', DEMO: 'off' };
    servers.push(await startServer(env), await startServer(env));
    const access_token = await tokenFrom(servers[0], client);
    const status = (server: RunningServer, path: string) =>
      fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${access_token}` } }).then(
        async (r) => (await r.arrayBuffer(), r.status),
      );
    for (const server of servers) {
      assert.is(await status(server, '/v1/me'), 200);
      assert.is(await status(server, '/v1/reports'), 200);
    }
    const revoke = await run('node', 'src/cli.ts', ['client', 'revoke', '--client', client.clientId, '--json'], {
      DATABASE_URL: t.db.url,
    });
    assert.is(revoke.status, 0, `${revoke.stderr} ${revoke.stdout}`);
    const revokedAt = Date.now();
    // Metered paths re-check revocation as they charge: refused at once.
    for (const server of servers) assert.is(await status(server, '/v1/reports'), 401);
    // Every path, /v1/me included, within one second.
    const pending = new Set(servers);
    while (pending.size && Date.now() - revokedAt < 1500) {
      for (const server of [...pending]) if ((await status(server, '/v1/me')) === 401) pending.delete(server);
      if (pending.size) await new Promise((r) => setTimeout(r, 25));
    }
    const took = Date.now() - revokedAt;
    assert.is(pending.size, 0, 'both servers refuse the token');
    assert.ok(took <= 1100, `took ${took} ms`);
  } finally {
    for (const server of servers) await server.stop();
    await t.close();
  }
});

it("a process just started accepts a sibling's tokens from its first request: 50 at once, five times, and after idling", async () => {
  const t = await testApp();
  const servers: RunningServer[] = [];
  try {
    const org = await createOrg(t.db.sql);
    const client = await createClient(t.db.sql, org);
    const first = await startServer({ DATABASE_URL: t.db.url, BASE_URL: 'http://first.readout.test', DEMO: 'off' });
    servers.push(first);
    const token = await tokenFrom(first, client);
    const burst = async (server: RunningServer, bearer: string) => {
      const statuses = await Promise.all(
        Array.from({ length: 50 }, () =>
          fetch(`${server.url}/v1/me`, { headers: { authorization: `Bearer ${bearer}` } }).then(
            async (r) => (await r.arrayBuffer(), r.status),
          ),
        ),
      );
      return statuses.filter((status) => status !== 200).length;
    };
    for (let round = 1; round <= 5; round++) {
      // Each with a BASE_URL of its own: it signs as another issuer, and must look up the first's.
      const fresh = await startServer({
        DATABASE_URL: t.db.url,
        BASE_URL: `http://fresh-${round}.readout.test`,
        DEMO: 'off',
      });
      servers.push(fresh);
      assert.is((await fetch(`${fresh.url}/v1/health`)).status, 200);
      assert.is(await burst(fresh, token), 0, `round ${round}: refused by the fresh process`);
      // A process started after this one read the issuers signs as one it has not seen: looked up once, for all 50.
      const later = await startServer({
        DATABASE_URL: t.db.url,
        BASE_URL: `http://later-${round}.readout.test`,
        DEMO: 'off',
      });
      servers.push(later);
      assert.is(
        await burst(fresh, await tokenFrom(later, client)),
        0,
        `round ${round}: a newer sibling's token refused`,
      );
      if (round < 5) for (const server of servers.splice(1)) await server.stop();
    }
    // Idle past every refresh interval (revocations 1 s, signing keys 0.1 s).
    await new Promise((resolve) => setTimeout(resolve, 2500));
    assert.is(await burst(servers[1], token), 0, 'refused after idling');
  } finally {
    for (const server of servers) await server.stop();
    await t.close();
  }
});

it('generate killed mid-run leaves nothing of itself behind: no accounts, campaigns or creatives without their facts', async () => {
  const t = await testApp();
  try {
    const org = await createOrg(t.db.sql);
    const counts = async () =>
      (
        await t.db.sql`select (select count(*)::int from ad_accounts where organization_id = ${org}) as accounts,
        (select count(*)::int from campaigns where organization_id = ${org}) as campaigns,
        (select count(*)::int from creatives where organization_id = ${org}) as creatives,
        (select count(*)::int from facts where organization_id = ${org}) as facts`
      )[0];
    const before = await counts();
    const [cmd, base] = command('node', 'src/cli.ts');
    const child = spawn(
      cmd,
      [
        ...base,
        'generate',
        '--org',
        org,
        '--accounts',
        '3',
        '--campaigns',
        '30',
        '--creatives',
        '4000',
        '--days',
        '300',
      ],
      {
        env: { ...process.env, DATABASE_URL: t.db.url },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    const exited = new Promise((resolve) => child.on('exit', resolve));
    // Killed once its first days of facts are in: the accounts, campaigns and creatives went in before them.
    await new Promise<void>((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => reject(new Error(`no progress in 150 s: ${err}`)), 150_000);
      child.stderr!.on('data', (chunk) => {
        err += chunk;
        if (/generate: \d+\/300 days/.test(err)) clearTimeout(timer), resolve();
      });
    });
    child.kill('SIGKILL');
    await exited;
    // The database ends the dead client's transaction; a moment for it to notice the socket closed.
    let after = await counts();
    for (let i = 0; i < 50 && JSON.stringify(after) !== JSON.stringify(before); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await counts();
    }
    assert.equal(after, before);
  } finally {
    await t.close();
  }
});

it("two servers on different ports over one database, with no BASE_URL set, accept each other's tokens", async () => {
  const t = await testApp();
  const servers: RunningServer[] = [];
  try {
    const org = await createOrg(t.db.sql);
    const client = await createClient(t.db.sql, org);
    const env = { DATABASE_URL: t.db.url, DEMO: 'off' };
    servers.push(await startServer(env), await startServer(env));
    const [a, b] = servers;
    for (const [issuer, verifier] of [
      [a, b],
      [b, a],
    ]) {
      const token = await tokenFrom(issuer, client);
      const res = await fetch(`${verifier.url}/v1/reports`, { headers: { authorization: `Bearer ${token}` } });
      assert.is(res.status, 200, `a token of ${issuer.url} is accepted by ${verifier.url}`);
      await res.arrayBuffer();
    }
  } finally {
    for (const server of servers) await server.stop();
    await t.close();
  }
});

type LockedExport = {
  t: TestApp;
  server: RunningServer;
  url: string;
  headers: Record<string, string>;
  blocker: ReservedSql;
};

/**
 * A server on a fresh tenant's database, and its fixture report's export URL, while another session holds the fact
 * tables locked: the export's query waits until the lock goes.
 */
async function withLockedFacts(env: Record<string, string>, test: (s: LockedExport) => Promise<void>) {
  const t = await testApp();
  let server: RunningServer | undefined;
  const blocker = await t.db.sql.reserve();
  try {
    const { org, client } = await tenant(t);
    const { report } = await fixtureReport(t, org);
    server = await startServer({ DATABASE_URL: t.db.url, BASE_URL: 'http://readout.test', DEMO: 'off', ...env });
    const headers = { authorization: `Bearer ${await tokenFrom(server, client)}` };
    await blocker`begin`;
    await blocker.unsafe(LOCK_FACTS);
    await test({
      t,
      server,
      url: `${server.url}/v1/reports/${report}/export.csv?dateFrom=2026-01-01&dateTo=2026-01-31&groupBy=campaign`,
      headers,
      blocker,
    });
  } finally {
    await blocker`rollback`.catch(() => {});
    blocker.release();
    await server?.stop();
    await t.close();
  }
}

it('an export cut by the deadline mid-stream ends that download, not the server', async () => {
  if (
    skipped(
      !onPostgres,
      'processes',
      `an export cut by the deadline mid-stream ends that download, not the server`,
      'needs PostgreSQL: only PostgreSQL can cancel the query the deadline cuts',
    )
  )
    return;
  await withLockedFacts({ REQUEST_DEADLINE_MS: '1500' }, async ({ server, url, headers, blocker }) => {
    const res = await fetch(url, { headers });
    assert.is(res.status, 200);
    let cut = false;
    try {
      for await (const _ of res.body!);
    } catch {
      cut = true;
    }
    assert.ok(cut, 'the client sees a cut download, not a short file');
    await blocker`rollback`;
    assert.is((await fetch(`${server.url}/v1/health`)).status, 200, 'the server is still up');
    assert.not.match(server.output(), /Unhandled 'error' event/);
  });
});

it('a client that goes away mid-download stops its query, through the real server', async () => {
  if (
    skipped(
      !onPostgres,
      'processes',
      `a client that goes away mid-download stops its query, through the real server`,
      'needs PostgreSQL: only PostgreSQL can cancel a running query',
    )
  )
    return;
  await withLockedFacts({}, async ({ t, url, headers }) => {
    const running = async () =>
      (
        await t.db
          .sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and (query like '%report\_%facts(%' or query like '/* report-data-%') and state = 'active'`
      )[0].n;
    const gone = new AbortController();
    const res = await fetch(url, { headers, signal: gone.signal });
    assert.is(res.status, 200);
    await new Promise((r) => setTimeout(r, 300));
    assert.is(await running(), 1, 'the export query waits on the lock');
    gone.abort();
    const until = Date.now() + 2000;
    while ((await running()) > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.is(await running(), 0, 'the query is cancelled');
  });
});

it('clients that give up before the first byte free their places and connections at once, not at the deadline', async () => {
  if (
    skipped(
      !onPostgres,
      'processes',
      'clients that give up before the first byte',
      'needs PostgreSQL: the embedded database runs one query at a time, so none can be held behind a lock',
    )
  )
    return;
  const t = await testApp();
  let server: RunningServer | undefined;
  const blocker = await t.db.sql.reserve();
  try {
    const { org, client } = await tenant(t);
    // An answer of more than 1,000 rows, so it is streamed rather than sent whole (json.ts).
    await cli(
      t.db.sql,
      ['generate', '--org', org, '--accounts', '1', '--campaigns', '10', '--creatives', '12000', '--days', '1'],
      t.clock.now,
    );
    const [report] = await t.db
      .sql`insert into reports (organization_id, name, kind, currency, metrics) values (${org}, 'Big', 'standard', 'USD', ${['clicks']}) returning id`;
    await t.db
      .sql`insert into report_ad_accounts (organization_id, report_id, ad_account_id) select organization_id, ${report.id}, id from ad_accounts where organization_id = ${org}`;
    const [{ day }] = await t.db.sql`select max(day)::text as day from facts where organization_id = ${org}`;
    server = await startServer({
      DATABASE_URL: t.db.url,
      BASE_URL: 'http://readout.test',
      DEMO: 'off',
      REQUEST_DEADLINE_MS: '60000',
      HEAVY_PER_CLIENT: '4',
      HEAVY_CONNECTIONS: '2',
    });
    const headers = { authorization: `Bearer ${await tokenFrom(server, client)}` };
    const data = `${server.url}/v1/reports/${report.id}/data?dateFrom=${day}&dateTo=${day}&groupBy=creative`;
    await blocker`begin`;
    await blocker.unsafe(LOCK_FACTS);
    // More than the client's four places and the server's two connections, each given up while its query waits.
    for (let i = 0; i < 5; i++) {
      const gone = new AbortController();
      const pending = fetch(data, { headers, signal: gone.signal }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 150));
      gone.abort();
      await pending;
    }
    await blocker`rollback`;
    // Their answers find nobody to take them, and give their places back then.
    let status = 0;
    for (let i = 0; i < 40 && status !== 200; i++) {
      const res = await fetch(data, { headers, signal: AbortSignal.timeout(5000) }).catch(() => undefined);
      status = res?.status ?? 0;
      await res?.arrayBuffer();
      if (status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    assert.is(status, 200, 'answered within 10 s, the deadline being 60 s');
  } finally {
    await blocker`rollback`.catch(() => {});
    blocker.release();
    await server?.stop();
    await t.close();
  }
});

it('the Node server takes a target in absolute form (RFC 9112 §3.2.2), ignores a strange Host, and answers HEAD with headers only', async () => {
  const t = await testApp();
  const server = await startServer({ DATABASE_URL: t.db.url, BASE_URL: 'http://readout.test', DEMO: 'off' });
  try {
    const raw = (target: string, host: string, method = 'GET') =>
      new Promise<string>((resolve, reject) => {
        const { port } = new URL(server.url);
        const socket = connect(Number(port), '127.0.0.1', () =>
          socket.write(`${method} ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
        );
        let text = '';
        socket
          .on('data', (chunk) => (text += chunk))
          .on('close', () => resolve(text))
          .on('error', reject);
      });
    assert.match(await raw('http://elsewhere.example/v1/health', 'elsewhere.example'), /^HTTP\/1\.1 200 /);
    // The query of an absolute-form target is read: x is refused by name (docs/decisions.md §8).
    assert.match(
      await raw('http://elsewhere.example/v1/openapi.json?x=1', 'elsewhere.example'),
      /^HTTP\/1\.1 400 [\s\S]*x is not a parameter of GET \/v1\/openapi.json/,
    );
    assert.match(await raw('/v1/openapi.json', 'not a host'), /^HTTP\/1\.1 200 /);
    assert.match(await raw('/v1/nowhere', 'x'), /^HTTP\/1\.1 404 [\s\S]*application\/problem\+json/);
    const get = await raw('/v1/openapi.json', 'x');
    const head = await raw('/v1/openapi.json', 'x', 'HEAD');
    const length = (text: string) => /\r\ncontent-length: (\d+)\r\n/i.exec(text)?.[1];
    assert.ok(length(get), 'the GET says its length');
    assert.is(length(head), length(get), "HEAD says the GET's length");
    assert.is(head.slice(head.indexOf('\r\n\r\n') + 4), '', 'and sends no body');
  } finally {
    await server.stop();
    await t.close();
  }
});

it.run();
