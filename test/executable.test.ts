// The single executable (npm run build) run as a user runs it: an empty environment, a folder of its own, no Node,
// npm or node_modules anywhere it could look. It serves (health, a token, data, an XLSX export), runs an operator
// command beside the running server, and stops on SIGTERM with exit 0.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { temporaryDir } from './support/server.ts';
import { skipped } from './support/skip.ts';
import { buildExecutable, canBuild } from './support/executable.ts';
import { VERSION } from '../src/config.ts';

const it = suite('executable');

/** Runs the executable with exactly `env` (nothing inherited), in `cwd`. */
function runBare(executable: string, args: string[], env: Record<string, string>, cwd: string) {
  return spawnSync(executable, args, { env, cwd, encoding: 'utf8', timeout: 60_000 });
}

it('with an empty environment in an empty folder: health, a token, data, an export, `client list`, then SIGTERM and exit 0', async () => {
  if (skipped(!canBuild, 'executable', 'runs alone', 'the executable is built for Linux x64 only')) return;
  const { path: executable } = buildExecutable();
  const dir = temporaryDir();
  // Nothing else is in reach: the folder is empty, PATH unset, and the executable is not inside a checkout.
  const child = spawn(executable, [], { env: { PORT: '0' }, cwd: dir.path, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "listening" in 60 s:\n${out}`)), 60_000);
      child.stdout.on('data', () => {
        const match = /"msg":"listening","url":"([^"]+)"/.exec(out);
        if (match) clearTimeout(timer), resolve(match[1]);
      });
      exited.then((code) => (clearTimeout(timer), reject(new Error(`exited with ${code}:\n${out}`))));
    });
    assert.match(out, /"database":"embedded PGlite in \.\/data"/);
    assert.match(out, /`readout demo` issues another/, 'the hint names the executable, not npm');
    const health = await fetch(`${url}/v1/health`);
    assert.equal([health.status, await health.json()], [200, { status: 'ok', version: VERSION }]);
    // The reference page carries Redoc's script from inside the executable.
    const docs = await fetch(`${url}/v1/docs`);
    assert.is(docs.status, 200);
    assert.match(await docs.text(), /Redoc\.init\(/);

    const organization = /^ +organization +(\S+)/m.exec(out)![1];
    const form = {
      grant_type: 'client_credentials',
      client_id: /client id +(\S+)/.exec(out)![1],
      client_secret: /client secret +(\S+)/.exec(out)![1],
    };
    const token = await fetch(`${url}/api/connect/token`, { method: 'POST', body: new URLSearchParams(form) });
    assert.is(token.status, 200);
    const auth = { authorization: `Bearer ${(await token.json()).access_token}` };
    const reportId = /reports\/([0-9a-f-]{36})\/data/.exec(out)![1];
    const query = 'groupBy=campaign&dateFrom=2026-01-01&dateTo=2026-01-31';
    const data = await fetch(`${url}/v1/reports/${reportId}/data?${query}`, { headers: auth });
    assert.is(data.status, 200);
    assert.ok((await data.json()).rows.length > 0, 'the demo report has rows');
    // The export uses xlsx-write-stream's templates, which the bundle must hand over.
    const sheet = await fetch(`${url}/v1/reports/${reportId}/export.xlsx?${query}`, { headers: auth });
    assert.is(sheet.status, 200);
    const bytes = new Uint8Array(await sheet.arrayBuffer());
    assert.equal([...bytes.subarray(0, 2)], [0x50, 0x4b], 'a zip file');
    assert.ok(Buffer.from(bytes).includes('xl/styles.xml'));

    // An operator command beside the running server talks to its database through the data folder's socket.
    const list = runBare(executable, ['client', 'list', '--org', organization], {}, dir.path);
    assert.is(list.status, 0, list.stderr);
    assert.match(list.stdout, new RegExp(form.client_id));

    child.kill('SIGTERM');
    assert.is(await exited, 0, out);
    assert.match(out, /"msg":"shutting down","signal":"SIGTERM"/);
    assert.equal(
      readdirSync(join(dir.path, 'data')).filter((f) => f.startsWith('readout')),
      [],
      'the lock and the socket are gone',
    );
  } finally {
    child.kill('SIGKILL');
    dir.remove();
  }
});

it('bad use is one line and exit 2: an unknown command, arguments to serve, a bad setting', () => {
  if (skipped(!canBuild, 'executable', 'bad use', 'the executable is built for Linux x64 only')) return;
  const { path: executable } = buildExecutable();
  const dir = temporaryDir();
  try {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['frobnicate'], {}, /^readout: unknown command "frobnicate"/],
      [['serve', '--port', '80'], {}, /^readout: serve takes no arguments; its settings are environment variables/],
      [['serve'], { PORT: 'eighty' }, /^readout: invalid configuration: PORT/],
    ];
    for (const [args, env, line] of cases) {
      const result = runBare(executable, args, env, dir.path);
      assert.is(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, line);
      assert.is(result.stderr.trim().split('\n').length, 1, result.stderr);
    }
    assert.not.ok(existsSync(join(dir.path, 'data')), 'nothing was started');
    const help = runBare(executable, ['help'], {}, dir.path);
    assert.is(help.status, 0, help.stderr);
    assert.match(help.stdout, /readout serve \(or readout alone\) starts the server/);
  } finally {
    dir.remove();
  }
});

it.run();
