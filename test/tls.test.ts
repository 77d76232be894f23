// HTTPS with TLS_CERT_FILE and TLS_KEY_FILE on Node, Bun and Deno, through real TLS clients (Node's https, curl) that
// trust only a certificate this test makes; a file that is missing, not PEM or not the certificate's key stops the
// start with one line and exit 2.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { runSync, startServer, temporaryDir, type Runtime } from './support/server.ts';
import { skipped } from './support/skip.ts';
import { buildExecutable, canBuild } from './support/executable.ts';
import { VERSION } from '../src/config.ts';

const it = suite('tls');

const openssl = spawnSync('openssl', ['version']).status === 0;
const curl = spawnSync('curl', ['--version']).status === 0;

/** A self-signed certificate for 127.0.0.1 and localhost, and its key, in dir. */
function certificate(dir: string, name = 'server') {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { encoding: 'utf8' },
  );
  assert.is(made.status, 0, made.stderr);
  return { cert, key };
}

function get(url: string, ca: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, { ca, method: init.method ?? 'GET', headers: init.headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

for (const name of ['node', 'bun', 'deno', 'executable'] as const) {
  it(`${name}: TLS_CERT_FILE and TLS_KEY_FILE serve HTTPS, BASE_URL defaults to https, a token and an answer go through`, async () => {
    if (skipped(!openssl, 'tls', `${name} serves HTTPS`, 'needs the openssl command to make a certificate')) return;
    if (
      name === 'executable' &&
      skipped(!canBuild, 'tls', 'the executable serves HTTPS', 'the executable is built for Linux x64 only')
    )
      return;
    const runtime: Runtime = name === 'executable' ? { executable: buildExecutable().path } : name;
    const dir = temporaryDir();
    const files = certificate(dir.path);
    const server = await startServer(
      { DATA_DIR: join(dir.path, 'data'), DEMO: 'auto', TLS_CERT_FILE: files.cert, TLS_KEY_FILE: files.key },
      runtime,
    );
    try {
      assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const ca = readFileSync(files.cert, 'utf8');
      const health = await get(`${server.url}/v1/health`, ca);
      assert.equal([health.status, JSON.parse(health.body)], [200, { status: 'ok', version: VERSION }]);
      const document = JSON.parse((await get(`${server.url}/v1/openapi.json`, ca)).body);
      assert.is(document.servers[0].url, server.url);
      const client = {
        id: /client id +(\S+)/.exec(server.output())![1],
        secret: /client secret +(\S+)/.exec(server.output())![1],
      };
      const token = await get(`${server.url}/api/connect/token`, ca, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: client.id,
          client_secret: client.secret,
        }).toString(),
      });
      assert.is(token.status, 200, token.body);
      const accessToken = JSON.parse(token.body).access_token;
      const [, payload] = accessToken.split('.');
      assert.is(
        JSON.parse(Buffer.from(payload, 'base64url').toString()).iss,
        server.url,
        'the issuer is the https address',
      );
      if (curl) {
        const me = spawnSync(
          'curl',
          ['-sS', '--cacert', files.cert, `${server.url}/v1/me`, '-H', `authorization: Bearer ${accessToken}`],
          { encoding: 'utf8' },
        );
        assert.is(me.status, 0, me.stderr);
        assert.match(JSON.parse(me.stdout).clientId, client.id);
        // A client that does not trust the certificate is refused by its own TLS stack, and the server goes on.
        const untrusted = spawnSync('curl', ['-sS', `${server.url}/v1/health`], { encoding: 'utf8' });
        assert.is.not(untrusted.status, 0);
      }
      // Plain HTTP on the TLS port gets nothing, and does not disturb the server.
      await fetch(`${server.url.replace('https:', 'http:')}/v1/health`).then(
        () => assert.unreachable('plain HTTP answered'),
        () => {},
      );
      assert.is((await get(`${server.url}/v1/health`, ca)).status, 200);
      assert.is(await server.stop('SIGTERM'), 0, server.output());
    } finally {
      await server.stop('SIGKILL');
      dir.remove();
    }
  });
}

it('a TLS file that is missing, not PEM, or not the key of the certificate stops the start: one line, exit 2', async () => {
  if (skipped(!openssl, 'tls', 'bad TLS files', 'needs the openssl command to make a certificate')) return;
  const dir = temporaryDir();
  try {
    const one = certificate(dir.path, 'one');
    const two = certificate(dir.path, 'two');
    const garbage = join(dir.path, 'garbage.pem');
    writeFileSync(garbage, 'not a certificate\n');
    const cases: [Record<string, string>, RegExp][] = [
      [{ TLS_CERT_FILE: one.cert }, /^readout: invalid configuration: TLS_KEY_FILE must be set with TLS_CERT_FILE\n$/],
      [
        { TLS_CERT_FILE: join(dir.path, 'missing.crt'), TLS_KEY_FILE: one.key },
        /^readout: TLS_CERT_FILE \S+missing\.crt cannot be read \(ENOENT\)\n$/,
      ],
      [{ TLS_CERT_FILE: garbage, TLS_KEY_FILE: one.key }, /^readout: TLS_CERT_FILE \S+ holds no PEM certificate\n$/],
      [
        { TLS_CERT_FILE: one.cert, TLS_KEY_FILE: garbage },
        /^readout: TLS_KEY_FILE \S+ holds no PEM private key \(or it is encrypted\)\n$/,
      ],
      [
        { TLS_CERT_FILE: one.cert, TLS_KEY_FILE: two.key },
        /^readout: TLS_KEY_FILE \S+two\.key is not the key of the certificate in \S+one\.crt\n$/,
      ],
    ];
    for (const [env, line] of cases) {
      const result = runSync('node', 'src/main.ts', [], { PORT: '0', DATA_DIR: join(dir.path, 'data'), ...env });
      assert.is(result.status, 2, `${JSON.stringify(env)}: ${result.stderr}`);
      assert.match(result.stderr, line);
    }
  } finally {
    dir.remove();
  }
});

it.run();
