// A refused request is answered (RFC 9112 §9.6): a body refused unread (larger than the token endpoint takes) must
// not make the server close a connection the client is still sending on, or the close turns into a reset that throws
// away the answer before the client has read it. The server drains the rest for a bounded time and bytes instead.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { testApp, type TestApp } from './support/app.ts';
import { startServer, type RunningServer } from './support/server.ts';

const it = suite('refused bodies');
const DECLARED = 100 * 1024 * 1024;

/** A POST declaring a 100 MB body, sent until the answer comes: its status, or the error that came instead. */
function hugeTokenRequest(url: string): Promise<{ status?: number; body?: string; error?: string }> {
  return new Promise((resolve) => {
    const target = new URL('/api/connect/token', url);
    let answered = false;
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(DECLARED) },
      },
      (res) => {
        answered = true;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode, body });
          req.destroy();
        });
        res.on('error', (error) => resolve({ status: res.statusCode, error: error.message }));
      },
    );
    req.on('error', (error) => {
      if (!answered) resolve({ error: `${(error as { code?: string }).code ?? ''} ${error.message}` });
    });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const pump = () => {
      while (!answered && !req.destroyed && sent < DECLARED) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
    };
    pump();
  });
}

it('a declared 100 MB body is answered 400 every time, beside a CPU load', async () => {
  const t: TestApp = await testApp();
  let server: RunningServer | undefined;
  const load: ChildProcess[] = [];
  try {
    server = await startServer({ DATABASE_URL: t.db.url, BASE_URL: 'http://readout.test', DEMO: 'off' });
    // Two busy processes on a two-core machine: the client is slow to read what arrives.
    for (let i = 0; i < 2; i++) {
      load.push(spawn(process.execPath, ['-e', 'const end = Date.now() + 60000; while (Date.now() < end);']));
    }
    const outcomes = [];
    for (let i = 0; i < 20; i++) outcomes.push(await hugeTokenRequest(server.url));
    const failed = outcomes.filter((o) => o.status !== 400 || !o.body?.includes('invalid_request'));
    assert.equal(failed, [], `${failed.length} of 20 not answered 400: ${JSON.stringify(failed[0])}`);
  } finally {
    for (const child of load) child.kill('SIGKILL');
    await server?.stop();
    await t.close();
  }
});

it.run();
