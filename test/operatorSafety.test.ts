// The command line says which database it uses before anything else, refuses an embedded folder that holds none
// (but where a command creates one), and names a misspelt setting (docs/decisions.md §10).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { databaseLine, loadConfig, strayVariables } from '../src/config.ts';
import { runSync, temporaryDir } from './support/server.ts';

const it = suite('operatorSafety');

it('the database line: a URL without its password, or the embedded folder as given and in full', () => {
  const url = (databaseUrl: string) => databaseLine({ databaseUrl, dataDir: './data' });
  assert.is(url('postgres://app:s3cret@db.internal:6432/readout'), 'database: postgres://app@db.internal:6432/readout');
  assert.is(
    url('postgresql://app@db/readout?sslmode=require'),
    'database: postgresql://app@db/readout?sslmode=require',
  );
  assert.is(databaseLine({ databaseUrl: undefined, dataDir: '/srv/readout' }), 'database: embedded in /srv/readout');
  assert.match(
    databaseLine({ databaseUrl: undefined, dataDir: './data' }),
    /^database: embedded in \.\/data \(\/.+\/data\)$/,
  );
});

it('a variable a few edits from one of ours, or any READOUT_ one, is named with the nearest; others are left alone', () => {
  const env = {
    DATABASE_ULR: 'postgres://x',
    DATA_DIRR: '/tmp/x',
    READOUT_PORT: '1',
    database_url: 'postgres://y',
    DATABASE_URL: 'postgres://z',
    PGPORT: '5433',
    SSL_CERT_FILE: '/etc/ssl/cert.pem',
    HOME: '/root',
    PATH: '/bin',
    HOSTNAME: 'box',
    NODE_OPTIONS: '',
    READOUT_PREPARE_DATA_DIR: '/tmp/x',
  };
  const lines = strayVariables(env);
  assert.equal(
    lines.map((line) => line.split(' (')[0]),
    [
      'unknown environment variable DATABASE_ULR; did you mean DATABASE_URL?',
      'unknown environment variable DATA_DIRR; did you mean DATA_DIR?',
      'unknown environment variable READOUT_PORT; did you mean PORT?',
      'unknown environment variable database_url; did you mean DATABASE_URL?',
    ],
  );
  // Every setting loadConfig reads is known: a correct environment draws no line.
  assert.equal(strayVariables({ PORT: '1', DATA_DIR: '/x', TOKEN_TTL_S: '60', HEAVY_PER_ORGANIZATION: '2' }), []);
  assert.ok(loadConfig({ DATABASE_ULR: 'postgres://x' }).databaseUrl === undefined, 'the typo is still not read');
});

it('a command on a DATA_DIR with no database is refused, the folder not made; org create makes it, naming it first', () => {
  const dir = temporaryDir();
  try {
    const dataDir = join(dir.path, 'elsewhere');
    const refused = runSync('node', 'src/cli.ts', ['org', 'list'], { DATA_DIR: dataDir, DATABASE_ULR: 'postgres://x' });
    assert.is(refused.status, 2, refused.stderr);
    assert.is(refused.stdout, '');
    const lines = refused.stderr.trimEnd().split('\n');
    assert.is(lines[0], `readout: database: embedded in ${dataDir}`);
    assert.match(lines[1], /^readout: warning: unknown environment variable DATABASE_ULR; did you mean DATABASE_URL\?/);
    assert.match(lines[2], /^readout: DATA_DIR \S+ holds no database; create one with `readout demo` or `readout org/);
    assert.is(lines.length, 3);
    assert.not.ok(existsSync(dataDir), 'nothing was created');
    const made = runSync('node', 'src/cli.ts', ['org', 'create', '--name', 'Acme', '--json'], { DATA_DIR: dataDir });
    assert.is(made.status, 0, made.stderr);
    assert.is(made.stderr.split('\n')[0], `readout: database: embedded in ${dataDir}`);
    const listed = runSync('node', 'src/cli.ts', ['org', 'list', '--json'], { DATA_DIR: dataDir });
    assert.is(listed.status, 0, listed.stderr);
    assert.is(JSON.parse(listed.stdout).organizations[0].name, 'Acme');
    assert.is(listed.stderr, `readout: database: embedded in ${dataDir}\n`);
  } finally {
    dir.remove();
  }
});

it.run();
