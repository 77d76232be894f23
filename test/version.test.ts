// One version in its four places (CHANGELOG.md, docs/compatibility.md): package.json, `readout --version`, the
// OpenAPI document's info.version as served, and /v1/health; CHANGELOG.md's newest release is it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import pkg from '../package.json' with { type: 'json' };
import openapi from '../spec/openapi.json' with { type: 'json' };
import { VERSION } from '../src/config.ts';
import { testApp } from './support/app.ts';
import { runSync } from './support/server.ts';

const it = suite('version');

it('package.json, the command line, the OpenAPI document and /v1/health say one version; the CHANGELOG has it', async () => {
  assert.match(pkg.version, /^\d+\.\d+\.\d+$/, 'a semantic version');
  assert.is(VERSION, pkg.version);
  assert.is(openapi.info.version, pkg.version, 'spec/openapi.json info.version');
  const cli = runSync('node', 'src/cli.ts', ['--version', '--json'], { DATA_DIR: '/proc/readout-never-made' });
  assert.is(cli.status, 0, cli.stderr);
  assert.is(JSON.parse(cli.stdout).version, pkg.version);
  assert.match(runSync('node', 'src/cli.ts', ['version']).stdout, new RegExp(`^readout ${pkg.version} \\(Node `));
  const t = await testApp();
  try {
    assert.is((await (await t.fetch('/v1/openapi.json')).json()).info.version, pkg.version, 'as served');
    assert.equal(await (await t.fetch('/v1/health')).json(), { status: 'ok', version: pkg.version });
  } finally {
    await t.close();
  }
  const changelog = readFileSync('CHANGELOG.md', 'utf8');
  const released = [...changelog.matchAll(/^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$/gm)].map((m) => m[1]);
  assert.is(released[0], pkg.version, "CHANGELOG.md's newest release");
  assert.match(changelog, /^## \[Unreleased\]$/m);
});

it.run();
