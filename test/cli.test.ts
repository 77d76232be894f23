import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseArgs } from '../src/cli/args.ts';
import { readFileSync } from 'node:fs';
import { SCOPES } from '../src/auth/scopes.ts';
import { COMMANDS, flagsOf, SWITCHES, usageLine } from '../src/cli/commands.ts';
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

const run = (db: TestDatabase, argv: string[]) =>
  runCommand(argv, { sql: db.sql, now: Date.now(), progress: () => {} });

async function rowCounts(db: TestDatabase) {
  const [row] =
    await db.sql`select (select count(*) from organizations)::int as orgs, (select count(*) from api_clients)::int as clients,
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
  const [org] =
    await db.sql`select o.currency, s.plan_code from organizations o join subscriptions s on s.organization_id = o.id where o.id = ${organizationId}`;
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
  [
    'an unknown flag',
    (org) => [
      'client',
      'create',
      '--org',
      org,
      '--name',
      'x',
      '--scopes',
      'reports:read',
      '--reports',
      'all',
      '--ad-accounts',
      'all',
      '--color',
      'red',
    ],
  ],
  ['an unknown plan', () => ['org', 'create', '--name', 'x', '--plan', 'platinum']],
  ['a bad currency', () => ['org', 'create', '--name', 'x', '--currency', 'euro']],
  [
    'an unknown scope',
    (org) => [
      'client',
      'create',
      '--org',
      org,
      '--name',
      'x',
      '--scopes',
      'reports:write',
      '--reports',
      'all',
      '--ad-accounts',
      'all',
    ],
  ],
  [
    'an org that is not a UUID',
    () => [
      'client',
      'create',
      '--org',
      'acme',
      '--name',
      'x',
      '--scopes',
      'reports:read',
      '--reports',
      'all',
      '--ad-accounts',
      'all',
    ],
  ],
  [
    'an org that does not exist',
    () => [
      'client',
      'create',
      '--org',
      crypto.randomUUID(),
      '--name',
      'x',
      '--scopes',
      'reports:read',
      '--reports',
      'all',
      '--ad-accounts',
      'all',
    ],
  ],
  [
    'a report allow-list naming another organization',
    (org) => [
      'client',
      'create',
      '--org',
      org,
      '--name',
      'x',
      '--scopes',
      'reports:read',
      '--reports',
      crypto.randomUUID(),
      '--ad-accounts',
      'all',
    ],
  ],
  ['a negative budget', (org) => ['plan', 'set', '--org', org, '--plan', 'business', '--budget', '-1']],
  ['an expiry in the past', () => ['client', 'secret', 'add', '--client', 'rdc_x', '--expires', '2001-01-01']],
  ['a secret for an unknown client', () => ['client', 'secret', 'add', '--client', 'rdc_nope']],
  ['revoking an unknown client', () => ['client', 'revoke', '--client', 'rdc_nope']],
  ['a repeated flag', () => ['org', 'create', '--name', 'a', '--name', 'b']],
  ['a lock on an unknown org', () => ['subscription', 'lock', '--org', crypto.randomUUID()]],
  [
    'a client without allow-lists',
    (org) => ['client', 'create', '--org', org, '--name', 'x', '--scopes', 'reports:read'],
  ],
  [
    'a client with an empty allow-list',
    (org) => [
      'client',
      'create',
      '--org',
      org,
      '--name',
      'x',
      '--scopes',
      'reports:read',
      '--reports',
      '',
      '--ad-accounts',
      'all',
    ],
  ],
  ['a list for an unknown org', () => ['report', 'list', '--org', crypto.randomUUID()]],
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

it('help lists every command with one line; COMMAND --help gives its usage and an example; exit 0', async ({ db }) => {
  for (const argv of [['help'], ['--help']]) {
    const out = await run(db, argv);
    assert.is(out.code, 0);
    for (const name of Object.keys(COMMANDS)) assert.match(out.stdout, new RegExp(`^  ${name} +\\S`, 'm'), name);
  }
  for (const argv of [
    ['client', 'create', '--help'],
    ['help', 'client', 'create'],
  ]) {
    const out = await run(db, argv);
    assert.is(out.code, 0);
    assert.match(
      out.stdout,
      'usage: readout client create --org ID --name NAME --scopes "SCOPE ..." --reports all|ID,... --ad-accounts all|ID,...',
    );
    assert.match(out.stdout, /^example: readout client create /m);
  }
});

it('readout version and --version print the version and the runtime, without a database', async ({ db }) => {
  const version = JSON.parse(readFileSync('package.json', 'utf8')).version;
  for (const argv of [['version'], ['--version']]) {
    const out = await run(db, argv);
    assert.is(out.code, 0, out.stderr);
    assert.is(out.stdout, `readout ${version} (Node ${process.versions.node})\n`);
  }
  assert.equal(JSON.parse((await run(db, ['--version', '--json'])).stdout), {
    version,
    runtime: `Node ${process.versions.node}`,
  });
});

it('client create --help lists every scope; generate says its counts are totals; demo explains its second organization', async ({
  db,
}) => {
  const help = (await run(db, ['client', 'create', '--help'])).stdout;
  for (const scope of SCOPES) assert.ok(help.includes(scope), scope);
  assert.match((await run(db, ['generate', '--help'])).stdout, /totals for the organization/);
  assert.match((await run(db, ['demo', '--help'])).stdout, /Other Company/);
});

it('generate refuses fewer creatives than campaigns, which would leave campaigns without any', async ({ db, org }) => {
  const out = await run(db, [
    'generate',
    '--org',
    org,
    '--accounts',
    '2',
    '--campaigns',
    '100',
    '--days',
    '60',
    '--creatives',
    '10',
  ]);
  assert.is(out.code, 2);
  assert.is(
    out.stderr,
    'readout: --creatives must be at least --campaigns: it is a total, spread over the campaigns\n',
  );
  const ok = await run(db, [
    'generate',
    '--org',
    org,
    '--accounts',
    '2',
    '--campaigns',
    '6',
    '--days',
    '2',
    '--creatives',
    '7',
    '--json',
  ]);
  assert.is(ok.code, 0, ok.stderr);
  const [{ empty }] = await db.sql`select count(*)::int as empty from campaigns c where c.organization_id = ${org}
    and not exists (select 1 from creatives k where k.campaign_id = c.id)`;
  assert.is(empty, 0, 'every campaign has a creative');
});

it('tables have a header row and fit 100 columns, long names cut with …; --json holds them whole', async ({ db }) => {
  const org = await createOrg(db.sql, { name: `A very long organization name ${'x'.repeat(120)}` });
  await createClient(db.sql, org, { name: `warehouse job with a long name ${'y'.repeat(100)}` });
  const out = await run(db, ['demo']);
  assert.is(out.code, 0, out.stderr);
  const demoOrg = (await db.sql`select id from organizations where name = 'Readout Demo'`)[0]?.id ?? org;
  for (const argv of [
    ['org', 'list'],
    ['client', 'list', '--org', org],
    ['report', 'list', '--org', demoOrg],
    ['account', 'list', '--org', demoOrg],
    ['segment', 'list', '--org', demoOrg],
    ['metric', 'list', '--org', demoOrg],
  ]) {
    const text = (await run(db, argv)).stdout.trimEnd().split('\n');
    assert.ok(/^(id|clientId|name) /.test(text[0]), `${argv.join(' ')}: a header row, got ${text[0]}`);
    for (const line of text) assert.ok(line.length <= 100, `${argv.join(' ')}: ${line.length} columns: ${line}`);
  }
  assert.ok((await run(db, ['org', 'list'])).stdout.includes('…'));
  const listed = JSON.parse((await run(db, ['org', 'list', '--json'])).stdout).organizations as { name: string }[];
  assert.ok(listed.some((o) => o.name.endsWith('x'.repeat(120))));
});

it('every missing flag is named at once, with the usage line; an unknown one by name', async ({ db, org }) => {
  const missing = await run(db, ['client', 'create', '--org', org]);
  assert.is(missing.code, 2);
  assert.is(
    missing.stderr,
    `readout: missing --name, --scopes, --reports, --ad-accounts; ${usageLine('client create')}\n`,
  );
  const unknown = await run(db, ['org', 'list', '--color', 'red', '--size', '2']);
  assert.is(unknown.stderr, `readout: unknown flag --color, --size; ${usageLine('org list')}\n`);
});

it('a mistyped command or flag is answered with the nearest names', async ({ db }) => {
  for (const [argv, meant] of [
    [['aply'], 'did you mean apply?'],
    [['fx', 'imprt'], 'did you mean fx import?'],
    [['help', 'clinet', 'create'], 'did you mean client create?'],
    [['import', '--org', 'x', '--fil', 'f.csv'], 'did you mean --file?'],
    [['import', '--Org', 'x', '--file', 'f.csv'], 'did you mean --org? (names are case-sensitive)'],
  ] as const) {
    const out = await run(db, [...argv]);
    assert.is(out.code, 2, argv.join(' '));
    assert.ok(out.stderr.includes(meant), out.stderr);
    assert.is(out.stderr.split('\n').length, 2, out.stderr);
  }
  assert.not.ok((await run(db, ['frobnicate'])).stderr.includes('did you mean'));
});

it('no flag is a switch in one command and takes a value in another (the line is read before the command is known)', () => {
  const valued = Object.values(COMMANDS).flatMap((c) =>
    flagsOf(c.usage)
      .filter((f) => f.value)
      .map((f) => f.name),
  );
  assert.equal(
    valued.filter((name) => SWITCHES.has(name)),
    [],
  );
});

it("each command's usage line and the flags it reads agree: given what its usage requires, none is missing", async ({
  db,
}) => {
  for (const [name, command] of Object.entries(COMMANDS)) {
    const required = flagsOf(command.usage).filter((f) => f.required);
    if (required.length === 0) continue;
    const out = await run(db, [...name.split(' '), ...required.flatMap((f) => [`--${f.name}`, 'x'])]);
    assert.not.match(out.stderr, /is required|missing --/, `${name}: ${out.stderr}`);
  }
});

it('every example in the help names only flags its command takes, and all it requires', () => {
  for (const [name, command] of Object.entries(COMMANDS)) {
    const words = command.example
      .replace(/"[^"]*"/g, 'X')
      .split(/\s+/)
      .slice(1);
    assert.equal(words.slice(0, name.split(' ').length), name.split(' '), name);
    const given = words.filter((w) => w.startsWith('--')).map((w) => w.slice(2));
    const flags = flagsOf(command.usage);
    for (const flag of given)
      assert.ok(
        flags.some((f) => f.name === flag),
        `${name}: --${flag}`,
      );
    for (const flag of flags.filter((f) => f.required))
      assert.ok(given.includes(flag.name), `${name} example lacks --${flag.name}`);
  }
});

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
    assert.equal(badArgs.stderr.trim().split('\n'), [
      'readout: missing --name; usage: readout org create --name NAME [--plan CODE] [--currency CODE] [--json]',
    ]);
    // Help is answered without the database: a DATA_DIR that cannot be opened does not matter.
    const help = runSync('node', 'src/cli.ts', ['--help'], { DATA_DIR: '/proc/readout-no-such-dir' });
    assert.is(help.status, 0, help.stderr);
    assert.match(help.stdout, /^ {2}client create {2,}create an API client/m);
  } finally {
    dir.remove();
    await fresh?.drop();
  }
});

it.run();

// ---

const lists = suite<{ db: TestDatabase; org: string }>('list commands');
lists.before(async (ctx) => {
  ctx.db = await freshDatabase({ demoAt: Date.parse('2026-03-10T10:15:00Z') });
  ctx.org = ctx.db.demo!.organizationId;
});
lists.after(async (ctx) => ctx.db.close());

lists(
  'org list, account list, report list, segment list and metric list: one JSON object each, or an aligned table',
  async ({ db, org }) => {
    const json = async (argv: string[]) => {
      const out = await run(db, [...argv, '--json']);
      assert.is(out.code, 0, out.stderr);
      assert.is(out.stdout.trim().split('\n').length, 1, 'exactly one line of JSON');
      return JSON.parse(out.stdout);
    };
    const orgs = (await json(['org', 'list'])).organizations;
    assert.equal(orgs.map((o: { name: string }) => o.name).sort(), ['Other Company', 'Readout Demo']);
    assert.equal(
      orgs.find((o: { id: string }) => o.id === org),
      { id: org, name: 'Readout Demo', currency: 'USD', plan: 'enterprise', locked: false, budgetPerHour: 10000 },
    );
    const accounts = (await json(['account', 'list', '--org', org])).adAccounts;
    assert.is(accounts.length, 4);
    assert.ok(
      accounts.every(
        (a: Record<string, string>) => /^[0-9a-f-]{36}$/.test(a.id) && a.platform && a.externalId && a.currency,
      ),
    );
    const reports = (await json(['report', 'list', '--org', org])).reports;
    const europe = reports.find((r: { name: string }) => r.name === 'Europe in EUR');
    assert.is(europe.currency, 'EUR');
    assert.is(europe.adAccountIds.length, 2);
    assert.equal(
      Object.keys(europe).sort(),
      [
        'adAccountIds',
        'createdAt',
        'currency',
        'description',
        'groupings',
        'id',
        'kind',
        'metrics',
        'name',
        'organizationId',
        'segmentIds',
        'updatedAt',
      ],
      "the API's report object",
    );
    const segments = (await json(['segment', 'list', '--org', org])).segments;
    assert.equal(
      segments.map((s: { name: string }) => s.name),
      ['Brand', 'Performance', 'Video'],
    );
    assert.ok(segments.every((s: { campaignCount: number }) => s.campaignCount > 0));
    const metrics = (await json(['metric', 'list', '--org', org])).metrics;
    assert.equal([metrics[0].name, metrics[0].system], ['impressions', true]);
    assert.ok(
      metrics.some(
        (m: Record<string, unknown>) =>
          m.name === 'cost_per_view' && m.system === false && m.formula === 'spend / video_views',
      ),
    );

    const text = await run(db, ['report', 'list', '--org', org]);
    const [header, ...rows] = text.stdout.trimEnd().split('\n');
    assert.match(header, /^id +name +kind +currency +accounts +metrics +groupings$/);
    assert.is(rows.length, reports.length);
    // Aligned: each column starts at the same place on every line.
    const at = header.indexOf('kind');
    for (const row of rows) assert.match(row.slice(at), /^(standard|segment|months) /);
  },
);

lists.run();
