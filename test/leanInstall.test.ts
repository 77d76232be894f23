// README's Quick start installs a server with its runtime dependencies only (`npm ci --omit=dev`): a checkout so
// installed starts, answers and serves a token, without Bun, Deno, Playwright or the test and lint tools.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { VERSION } from '../src/config.ts';
import { startServer, temporaryDir, tokenFrom } from './support/server.ts';
import { onPostgres } from './support/database.ts';
import { skipped } from './support/skip.ts';

const it = suite('leanInstall');

/** npm as the test runner was started by it, else the one on PATH. */
const npm = (): [string, string[]] =>
  process.env.npm_execpath?.endsWith('.js') ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];

it('npm ci --omit=dev: about a third of the full install, and the server starts, answers and issues a token', async () => {
  // The install is the same whatever the database: run on the embedded pass only.
  if (skipped(onPostgres, 'leanInstall', 'npm ci --omit=dev', 'runs on the embedded pass; the install has no database'))
    return;
  const dir = temporaryDir();
  try {
    for (const path of ['package.json', 'package-lock.json', 'src', 'sql', 'spec'])
      cpSync(path, join(dir.path, path), { recursive: true });
    const [cmd, base] = npm();
    // From npm's cache, which the full install of this checkout filled: no network.
    const install = spawnSync(cmd, [...base, 'ci', '--omit=dev', '--offline', '--no-audit', '--no-fund'], {
      cwd: dir.path,
      encoding: 'utf8',
      timeout: 300_000,
    });
    if (
      skipped(
        install.status !== 0 && /ENOTCACHED|ETARGET|cache mode is 'only-if-cached'/.test(install.stderr),
        'leanInstall',
        'npm ci --omit=dev',
        "npm's cache lacks a package this checkout's install would fetch",
      )
    )
      return;
    assert.is(install.status, 0, install.stderr);
    for (const dev of ['bun', 'deno', 'playwright-core', '@biomejs/biome', 'uvu', 'autocannon'])
      assert.not.ok(existsSync(join(dir.path, 'node_modules', dev)), `${dev} is a development dependency`);
    const megabytes = Number(
      spawnSync('du', ['-sm', join(dir.path, 'node_modules')], { encoding: 'utf8' }).stdout.split('\t')[0],
    );
    // docs/operations.md states the size; it grows only with a new runtime dependency.
    assert.ok(megabytes < 200, `node_modules is ${megabytes} MB`);

    const server = await startServer({ DATA_DIR: join(dir.path, 'data') }, 'node', dir.path);
    try {
      const health = await fetch(`${server.url}/v1/health`);
      assert.equal(await health.json(), { status: 'ok', version: VERSION });
      const id = /client id\s+(rdc_\w+)/.exec(server.output())?.[1];
      const secret = /client secret\s+(rds_[\w-]+)/.exec(server.output())?.[1];
      assert.ok(id && secret, server.output());
      const token = await tokenFrom(server, { clientId: id, clientSecret: secret });
      const me = await fetch(`${server.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
      assert.is(me.status, 200, server.output());
      assert.is((await fetch(`${server.url}/v1/docs`)).status, 200);
    } finally {
      assert.is(await server.stop(), 0);
    }
  } finally {
    dir.remove();
  }
});

it.run();
