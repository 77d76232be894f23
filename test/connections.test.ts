// Connections end (docs/operations.md, "Connections"): a socket that never sends a request is closed after
// HEADERS_TIMEOUT_S, and past MAX_CONNECTIONS a new connection takes the place of the oldest idle one, so that
// /v1/health and the token endpoint still answer while thousands of silent sockets are open.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type Socket } from 'node:net';
import { defaultMaxConnections } from '../src/serve/connections.ts';
import { freshDatabaseUrl, onPostgres } from './support/database.ts';
import { startServer, temporaryDir } from './support/server.ts';

const it = suite('connections end');

it('the default cap keeps file descriptors for everything but clients', () => {
  assert.is(defaultMaxConnections(20_000), 19_488);
  assert.is(defaultMaxConnections(1024), 512);
  assert.is(defaultMaxConnections(256), 128);
  assert.is(defaultMaxConnections(undefined), 10_000);
});

const SILENT = 300;

it(`${SILENT} silent sockets past MAX_CONNECTIONS: health and tokens still answer, and the sockets are closed`, async () => {
  const dir = temporaryDir();
  const fresh = onPostgres ? await freshDatabaseUrl() : undefined;
  const server = await startServer({
    ...(fresh ? { DATABASE_URL: fresh.url } : { DATA_DIR: dir.path }),
    DEMO: 'off',
    HEADERS_TIMEOUT_S: '2',
    MAX_CONNECTIONS: '100',
  });
  const sockets: Socket[] = [];
  try {
    const { port } = new URL(server.url);
    let closed = 0;
    for (let i = 0; i < SILENT; i++) {
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => {});
      socket.on('close', () => closed++);
      sockets.push(socket);
    }
    await Promise.all(
      sockets.map((s) => new Promise((resolve) => (s.connecting ? s.once('connect', resolve) : resolve(0)))),
    );
    const health = await fetch(`${server.url}/v1/health`, { signal: AbortSignal.timeout(30_000) });
    assert.is(health.status, 200);
    const token = await fetch(`${server.url}/api/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=rdc_0&client_secret=rds_0',
      signal: AbortSignal.timeout(30_000),
    });
    assert.is(token.status, 401, 'an unknown client is refused, but answered');
    // Past the cap the oldest were closed at once; every other one when it had sent nothing for HEADERS_TIMEOUT_S.
    for (const started = Date.now(); closed < SILENT && Date.now() - started < 30_000; )
      await new Promise((resolve) => setTimeout(resolve, 100));
    assert.is(closed, SILENT, 'every silent socket was closed by the server');
  } finally {
    for (const socket of sockets) socket.destroy();
    await server.stop();
    dir.remove();
    await fresh?.drop();
  }
});

it.run();
