// Several processes on one database: a client revoked by the operator command is refused by every server within a second.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { testApp } from './support/app.ts';
import { createClient, createOrg } from './support/fixtures.ts';
import { run, startServer, type RunningServer } from './support/server.ts';

const it = suite('processes');

it('a client revoked through `readout client revoke` is refused by two servers within one second', async () => {
  const t = await testApp();
  const servers: RunningServer[] = [];
  try {
    const org = await createOrg(t.db.sql);
    const client = await createClient(t.db.sql, org);
    const env = { DATABASE_URL: t.db.url, BASE_URL: 'http://readout.test', DEMO: 'off' };
    servers.push(await startServer(env), await startServer(env));
    const res = await fetch(`${servers[0].url}/api/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
    });
    const { access_token } = await res.json();
    const status = (server: RunningServer, path: string) =>
      fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${access_token}` } }).then(async (r) => (await r.arrayBuffer(), r.status));
    for (const server of servers) {
      assert.is(await status(server, '/v1/me'), 200);
      assert.is(await status(server, '/v1/reports'), 200);
    }
    const revoke = await run('node', 'src/cli.ts', ['client', 'revoke', '--client', client.clientId, '--json'], { DATABASE_URL: t.db.url });
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

it.run();
