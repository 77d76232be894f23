import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseProblem } from '../src/serve/startup.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { runSync } from './support/server.ts';

test('defaults follow docs/decisions.md §2', () => {
  const config = loadConfig({});
  assert.equal(config, {
    port: 8080,
    host: '127.0.0.1',
    databaseUrl: undefined,
    replicaUrls: [],
    replicaMaxLagMs: 1000,
    migrationDatabaseUrl: undefined,
    poolMode: 'auto',
    migrationPoolMode: 'auto',
    dataDir: './data',
    baseUrl: 'http://127.0.0.1:8080',
    problemsUrl: 'http://127.0.0.1:8080/problems',
    requestDeadlineMs: 30000,
    tokenTtlSeconds: 3600,
    demo: 'auto',
    heavyPerClient: 4,
    heavyConnections: 4,
    heavyPerOrganization: 2,
    downloadStallMs: 10_000,
    connections: { headersTimeoutMs: 10_000, keepAliveTimeoutMs: 65_000 },
    metricsPort: undefined,
    tls: undefined,
  });
  // On PostgreSQL two a core up to 10 (many more heavy queries than cores keep cheap requests waiting for one), and one
  // more than a client may hold, so one client's stalled downloads leave one for everybody else.
  assert.equal(
    [1, 2, 3, 4, 16].map((cores) => loadConfig({ DATABASE_URL: 'postgres://db/x' }, cores).heavyConnections),
    [5, 5, 6, 8, 10],
  );
  assert.is(loadConfig({ DATABASE_URL: 'postgres://db/x', HEAVY_PER_CLIENT: '12' }, 16).heavyConnections, 13);
  assert.is(loadConfig({ DATABASE_URL: 'postgres://db/x', HEAVY_CONNECTIONS: '12' }, 2).heavyConnections, 12);
  const secure = loadConfig({ TLS_CERT_FILE: 'c.pem', TLS_KEY_FILE: 'k.pem' });
  assert.equal(
    [secure.baseUrl, secure.tls],
    ['https://127.0.0.1:8080', { certFile: 'c.pem', keyFile: 'k.pem' }],
    'with TLS files BASE_URL defaults to https',
  );
});

test('DEMO is off by default on PostgreSQL, so a production database is never seeded by accident', () => {
  assert.is(loadConfig({ DATABASE_URL: 'postgres://db/x' }).demo, 'off');
  assert.is(loadConfig({ DATABASE_URL: 'postgres://db/x', DEMO: 'auto' }).demo, 'auto');
  assert.is(
    loadConfig({ DATABASE_URL: 'postgres://db/x', DEMO: 'on' }).demo,
    'auto',
    'on is auto: seeded only when empty',
  );
  assert.is(loadConfig({ DEMO: 'off' }).demo, 'off');
  assert.is(loadConfig({}).demo, 'auto', 'the embedded database starts with something to read');
});

test('BASE_URL drives PROBLEMS_URL, and a trailing slash is dropped', () => {
  const config = loadConfig({ BASE_URL: 'https://api.example.com/' });
  assert.is(config.baseUrl, 'https://api.example.com');
  assert.is(config.problemsUrl, 'https://api.example.com/problems');
});

for (const [key, value] of [
  ['PORT', 'eighty'],
  ['PORT', '70000'],
  ['REQUEST_DEADLINE_MS', '0'],
  ['TOKEN_TTL_S', '-5'],
  ['BASE_URL', 'not a url'],
  ['DATABASE_URL', 'mysql://x'],
  ['DEMO', 'yes'],
]) {
  test(`${key}=${value} is refused with a line naming ${key}`, () => {
    try {
      loadConfig({ [key]: value });
      assert.unreachable();
    } catch (error) {
      assert.instance(error, ConfigError);
      assert.match((error as Error).message, key);
      assert.not.match((error as Error).message, /\n/);
    }
  });
}

test('the server refuses a bad value with one line on stderr and exit 2', () => {
  const result = runSync('node', 'src/main.ts', [], { PORT: 'eighty' });
  assert.is(result.status, 2);
  const lines = result.stderr
    .trim()
    .split('\n')
    .filter((l) => !l.startsWith('npm warn'));
  assert.is(lines.length, 1);
  assert.match(lines[0], /PORT/);
});

test('standbys and the migration URL: a list of postgres URLs, a primary required, migrations on DATABASE_URL unless set', () => {
  const config = loadConfig({
    DATABASE_URL: 'postgres://p/x',
    DATABASE_REPLICA_URLS: 'postgres://s1/x, postgres://s2/x',
    REPLICA_MAX_LAG_MS: '250',
  });
  assert.equal(
    [config.replicaUrls, config.replicaMaxLagMs, config.migrationDatabaseUrl],
    [['postgres://s1/x', 'postgres://s2/x'], 250, 'postgres://p/x'],
  );
  assert.is(
    loadConfig({ DATABASE_URL: 'postgres://pooler/x', MIGRATION_DATABASE_URL: 'postgres://p/x' }).migrationDatabaseUrl,
    'postgres://p/x',
  );
  assert.throws(
    () => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://s1/x' }),
    (e: Error) => e instanceof ConfigError && /DATABASE_REPLICA_URLS needs DATABASE_URL/.test(e.message),
  );
  assert.throws(
    () => loadConfig({ DATABASE_URL: 'postgres://p/x', DATABASE_REPLICA_URLS: 'postgres://s1/x,mysql://s2' }),
    (e: Error) => /DATABASE_REPLICA_URLS=.* must be postgres:\/\/ URLs separated by commas/.test(e.message),
  );
  assert.throws(
    () => loadConfig({ DATABASE_URL: 'postgres://p/x', REPLICA_MAX_LAG_MS: '0' }),
    (e: Error) => /REPLICA_MAX_LAG_MS/.test(e.message),
  );
  // An empty entry is a mistake in the list, never a standby fewer.
  for (const list of [',,', 'postgres://s1/x,', ',postgres://s1/x', 'postgres://s1/x,,postgres://s2/x', ' , ']) {
    assert.throws(
      () => loadConfig({ DATABASE_URL: 'postgres://p/x', DATABASE_REPLICA_URLS: list }),
      (e: Error) => e instanceof ConfigError && /DATABASE_REPLICA_URLS=.* must not hold an empty entry/.test(e.message),
      list,
    );
  }
});

test('DATABASE_REPLICA_URLS=",," stops the server with one line on stderr and exit 2', () => {
  const result = runSync('node', 'src/main.ts', [], {
    DATABASE_URL: 'postgres://127.0.0.1:1/x',
    DATABASE_REPLICA_URLS: ',,',
  });
  assert.is(result.status, 2);
  const lines = result.stderr
    .trim()
    .split('\n')
    .filter((l) => !l.startsWith('npm warn'));
  assert.equal(lines.length, 1, result.stderr);
  assert.match(lines[0], /DATABASE_REPLICA_URLS/);
});

test('DATABASE_POOL_MODE: auto, session or transaction; an explicit MIGRATION_DATABASE_URL is direct unless auto', () => {
  assert.equal(
    [loadConfig({ DATABASE_URL: 'postgres://p/x', MIGRATION_DATABASE_URL: 'postgres://m/x' }).migrationPoolMode],
    ['auto'],
  );
  const pooled = loadConfig({ DATABASE_URL: 'postgres://pgbouncer/x', DATABASE_POOL_MODE: 'transaction' });
  assert.equal([pooled.poolMode, pooled.migrationPoolMode], ['transaction', 'transaction']);
  const direct = loadConfig({
    DATABASE_URL: 'postgres://pgbouncer/x',
    DATABASE_POOL_MODE: 'transaction',
    MIGRATION_DATABASE_URL: 'postgres://p/x',
  });
  assert.equal([direct.poolMode, direct.migrationPoolMode], ['transaction', 'session']);
  assert.throws(
    () => loadConfig({ DATABASE_URL: 'postgres://p/x', DATABASE_POOL_MODE: 'statement' }),
    (e: Error) => /DATABASE_POOL_MODE="statement" must be auto, session or transaction/.test(e.message),
  );
  assert.throws(
    () => loadConfig({ DATABASE_POOL_MODE: 'transaction' }),
    (e: Error) => e instanceof ConfigError && /DATABASE_POOL_MODE needs DATABASE_URL/.test(e.message),
  );
});

test('a pooler that refuses the startup settings is one line naming DATABASE_POOL_MODE', () => {
  const refused = Object.assign(new Error('unsupported startup parameter: jit'), { code: '08P01' });
  assert.is(
    databaseProblem(refused, 'postgres://readout:secret@pgbouncer:6432/readout'),
    'the database at postgresql://pgbouncer:6432/readout refused a setting sent at startup (unsupported startup parameter: jit): behind PgBouncer, set DATABASE_POOL_MODE=transaction, or leave it unset',
  );
});

test.run();
