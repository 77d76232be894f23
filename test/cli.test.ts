import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseArgs } from '../src/cli/args.ts';
import { runCommand } from '../src/cli/run.ts';
import { freshDatabase, onPostgres, freshDatabaseUrl, type TestDatabase } from './support/database.ts';
import { cli, createClient, createOrg } from './support/fixtures.ts';
import { runSync, temporaryDir } from './support/server.ts';

const it = suite<{ db: TestDatabase; org: string }>('operator command line');
it.before(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.org = await createOrg(ctx.db.sql);
});
it.after(async (ctx) => ctx.db.close());

const run = (db: TestDatabase, argv: string[]) => runCommand(argv, { sql: db.sql, now: Date.now(), progress: () => {} });

async function rowCounts(db: TestDatabase) {
  const [row] = await db.sql`select (select count(*) from organizations)::int as orgs, (select count(*) from api_clients)::int as clients,
    (select count(*) from client_secrets)::int as secrets, (select count(*) from subscriptions where locked)::int as locked`;
  return row;
}

it('command lines are read strictly: each mistake named in one line', () => {
  const read = (argv: string[]) => {
    try {
      const { words, flags } = parseArgs(argv, new Set(['json']));
      return [words, Object.fromEntries(flags)];
    } catch (error) {
      return (error as Error).message;
    }
  };
  assert.equal(read(['org', 'create', '--name', 'x', '--json']), [['org', 'create'], { name: 'x', json: true }]);
  assert.equal(read(['org', 'create', '--name=a=b']), [['org', 'create'], { name: 'a=b' }]);
  assert.is(read(['org', 'create', '--name']), '--name needs a value');
  assert.is(read(['org', 'create', '--name', '--json']), '--name needs a value');
  assert.is(read(['org', 'create', '--name', 'a', '--name', 'b']), '--name is given twice');
  assert.is(read(['org', '--name', 'a', 'create']), 'unexpected argument "create"');
  assert.is(read(['org', 'create', '--json=1']), '--json takes no value');
  assert.is(read(['org', 'create', '-n', 'x']), 'malformed flag "-n"');
});

it('org create --json prints exactly one JSON object', async ({ db }) => {
  const out = await run(db, ['org', 'create', '--name', 'Globex', '--plan', 'business', '--currency', 'eur', '--json']);
  assert.is(out.code, 0);
  const lines = out.stdout.trim().split('\n');
  assert.is(lines.length, 1);
  const { organizationId } = JSON.parse(lines[0]);
  const [org] = await db.sql`select o.currency, s.plan_code from organizations o join subscriptions s on s.organization_id = o.id where o.id = ${organizationId}`;
  assert.equal({ ...org }, { currency: 'EUR', plan_code: 'business' });
});

it('client create prints the secret once and stores only its hash', async ({ db, org }) => {
  const { clientId, clientSecret, secretId } = await createClient(db.sql, org);
  assert.match(clientId, /^rdc_[0-9a-f]{32}$/);
  assert.match(clientSecret, /^rds_[A-Za-z0-9_-]{43}$/);
  const dump = JSON.stringify(await db.sql`select * from client_secrets where id = ${secretId}`);
  assert.not.match(dump, clientSecret.slice(4));
  const listed = await cli(db.sql, ['client', 'list', '--org', org]);
  assert.ok(listed.clients.some((c: { clientId: string }) => c.clientId === clientId));
  assert.not.match(JSON.stringify(listed), clientSecret);
  assert.not.match(JSON.stringify(listed), /hash/i);
});

const bad: [string, (org: string) => string[]][] = [
  ['an unknown command', () => ['org', 'destroy']],
  ['a missing required flag', () => ['org', 'create']],
  ['an unknown flag', (org) => ['client', 'create', '--org', org, '--name', 'x', '--scopes', 'reports:read', '--color', 'red']],
  ['an unknown plan', () => ['org', 'create', '--name', 'x', '--plan', 'platinum']],
  ['a bad currency', () => ['org', 'create', '--name', 'x', '--currency', 'euro']],
  ['an unknown scope', (org) => ['client', 'create', '--org', org, '--name', 'x', '--scopes', 'reports:write']],
  ['an org that is not a UUID', () => ['client', 'create', '--org', 'acme', '--name', 'x', '--scopes', 'reports:read']],
  ['an org that does not exist', () => ['client', 'create', '--org', crypto.randomUUID(), '--name', 'x', '--scopes', 'reports:read']],
  ['a report allow-list naming another organization', (org) => ['client', 'create', '--org', org, '--name', 'x', '--scopes', 'reports:read', '--reports', crypto.randomUUID()]],
  ['a negative budget', (org) => ['plan', 'set', '--org', org, '--plan', 'business', '--budget', '-1']],
  ['an expiry in the past', () => ['client', 'secret', 'add', '--client', 'rdc_x', '--expires', '2001-01-01']],
  ['a secret for an unknown client', () => ['client', 'secret', 'add', '--client', 'rdc_nope']],
  ['revoking an unknown client', () => ['client', 'revoke', '--client', 'rdc_nope']],
  ['a repeated flag', () => ['org', 'create', '--name', 'a', '--name', 'b']],
  ['a lock on an unknown org', () => ['subscription', 'lock', '--org', crypto.randomUUID()]],
];
for (const [what, argv] of bad) {
  it(`${what}: one line on stderr, exit 2, nothing written`, async ({ db, org }) => {
    const before = await rowCounts(db);
    const out = await run(db, [...argv(org), '--json']);
    assert.is(out.code, 2);
    assert.is(out.stdout, '');
    assert.is(out.stderr.trim().split('\n').length, 1);
    assert.match(out.stderr, /^readout: /);
    assert.equal(await rowCounts(db), before);
  });
}

it('npm run readout runs as a real process: JSON out, and exit 2 with one line for bad arguments', async () => {
  const dir = temporaryDir();
  const fresh = onPostgres ? await freshDatabaseUrl() : undefined;
  const env: Record<string, string> = fresh ? { DATABASE_URL: fresh.url } : { DATA_DIR: dir.path };
  try {
    const ok = runSync('node', 'src/cli.ts', ['org', 'create', '--name', 'Proc', '--json'], env);
    assert.is(ok.status, 0, ok.stderr);
    assert.match(JSON.parse(ok.stdout).organizationId, /^[0-9a-f-]{36}$/);
    const badArgs = runSync('node', 'src/cli.ts', ['org', 'create', '--json'], env);
    assert.is(badArgs.status, 2);
    assert.is(badArgs.stdout, '');
    assert.equal(badArgs.stderr.trim().split('\n').filter((l) => !l.startsWith('npm warn')), ['readout: --name is required']);
  } finally {
    dir.remove();
    await fresh?.drop();
  }
});

it.run();
