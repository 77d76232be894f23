// The server's life as an operator sees it: the documented start commands stop cleanly on SIGTERM (in-flight requests
// finish, exit 0, nothing left listening), what stops a start is one line and exit 2, and the embedded database's
// files and socket are this process's and this user's alone.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { runSync, startServer, temporaryDir } from './support/server.ts';
import { skipped } from './support/skip.ts';

const it = suite('lifecycle');

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => (socket.destroy(), resolve(true)));
    socket.on('error', () => resolve(false));
  });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(what: string, check: () => Promise<boolean> | boolean, ms = 60_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The server's pid: the descendant of the wrapper README's command starts (npm, npx, sh -c) that runs src/main.ts. */
function serverPid(root: number): number | undefined {
  const rows = spawnSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n')
    .map((l) => {
      const [pid, ppid, ...args] = l.trim().split(/\s+/);
      return { pid: Number(pid), ppid: Number(ppid), args: args.join(' ') };
    });
  const family = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const row of rows) if (family.has(row.ppid) && !family.has(row.pid)) family.add(row.pid), (grew = true);
  }
  return rows.find(
    (row) => family.has(row.pid) && /src\/main\.ts/.test(row.args) && !/^(npm|sh -c|node \S*npx)/.test(row.args),
  )?.pid;
}

// README's start commands, each through the wrapper people type: npm and npx run the server under `sh -c`.
const COMMANDS: [string, string, string[]][] = [
  ['npm start', 'npm', ['start']],
  ['npx bun src/main.ts', 'npx', ['bun', 'src/main.ts']],
  ['npx deno run -A src/main.ts', 'npx', ['deno', 'run', '-A', 'src/main.ts']],
];

for (const [name, cmd, args] of COMMANDS) {
  it(`SIGTERM to \`${name}\` stops the server: exit 0, the port and the data folder free`, async () => {
    const dir = temporaryDir();
    const port = await freePort();
    const child = spawn(cmd, args, {
      env: { ...process.env, PORT: String(port), DATA_DIR: dir.path, DEMO: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let pid: number | undefined;
    try {
      await until(`${name} to listen`, async () => (await listening(port)) && /"msg":"listening"/.test(out));
      pid = serverPid(child.pid!);
      assert.ok(pid, 'the server process is found');
      child.kill('SIGTERM');
      await exited;
      await until('the server to exit', () => !alive(pid!), 15_000);
      assert.not.ok(await listening(port), 'nothing listens on the port');
      assert.match(out, /"msg":"shutting down"/);
      assert.not.ok(existsSync(join(dir.path, 'readout.lock')), 'the lock is given back');
      assert.not.ok(existsSync(join(dir.path, 'readout.sock')), 'the socket is removed');
    } finally {
      child.kill('SIGKILL');
      if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
      dir.remove();
    }
  });
}

it('a request in flight when SIGTERM comes is answered before the server exits 0', async () => {
  const dir = temporaryDir();
  const server = await startServer({ DATA_DIR: dir.path, DEMO: 'off' });
  try {
    const { port } = new URL(server.url);
    const socket = connect({ host: '127.0.0.1', port: Number(port) });
    await new Promise((resolve) => socket.once('connect', resolve));
    let answer = '';
    socket.on('data', (c) => (answer += c));
    const body = 'grant_type=client_credentials&client_id=nobody&client_secret=wrong';
    // Headers and half the body: the request is in flight, its handler waiting for the rest.
    socket.write(
      `POST /api/connect/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 20)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const exit = server.stop('SIGTERM');
    await until('the shutdown to begin', () => /"msg":"shutting down"/.test(server.output()), 10_000);
    socket.write(body.slice(20));
    await until('the answer', () => /\r\n\r\n\{/.test(answer), 10_000);
    assert.match(answer, /^HTTP\/1\.1 401/);
    assert.match(answer, /invalid_client/);
    socket.destroy();
    assert.is(await exit, 0, server.output());
  } finally {
    await server.stop('SIGKILL');
    dir.remove();
  }
});

it('what stops a start is one line naming it, exit 2: a port in use, an unreachable database, an unusable DATA_DIR', async () => {
  const taken = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => taken.once('listening', resolve));
  const dir = temporaryDir();
  try {
    writeFileSync(join(dir.path, 'a-file'), '');
    const cases: [Record<string, string>, RegExp][] = [
      [
        { PORT: String((taken.address() as AddressInfo).port), DATA_DIR: join(dir.path, 'data') },
        /^readout: cannot listen on 127\.0\.0\.1:\d+: the port is in use \(set PORT\)\n$/,
      ],
      [
        { DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/readout` },
        /^readout: cannot reach the database at postgresql:\/\/127\.0\.0\.1:\d+\/readout \(ECONNREFUSED\)\n$/,
      ],
      [{ DATA_DIR: join(dir.path, 'a-file', 'data') }, /^readout: DATA_DIR \S+ cannot be used \(ENOTDIR\)\n$/],
      [{ DATA_DIR: join(dir.path, 'a-file') }, /^readout: DATA_DIR \S+ cannot be used \(ENOTDIR\)\n$/],
      [{ DATA_DIR: '/proc/readout-cannot-be-made' }, /^readout: DATA_DIR \S+ cannot be used \(ENOENT\)\n$/],
    ];
    for (const [env, line] of cases) {
      const result = runSync('node', 'src/main.ts', [], { PORT: '0', ...env });
      assert.is(result.status, 2, `${JSON.stringify(env)}: ${result.stderr}`);
      assert.match(result.stderr, line);
    }
    // The port is tried first: its DATA_DIR was never made, no migration applied.
    assert.not.ok(existsSync(join(dir.path, 'data')), 'a server on a busy port wrote nothing');
    const cli = runSync('node', 'src/cli.ts', ['org', 'list'], { DATA_DIR: join(dir.path, 'a-file') });
    assert.is(cli.status, 2, cli.stderr);
    assert.match(
      cli.stderr,
      /^readout: database: embedded in \S+\nreadout: DATA_DIR \S+ cannot be used \(ENOTDIR\)\n$/,
    );
  } finally {
    taken.close();
    dir.remove();
  }
});

it("the embedded database is reached only through a 0600 socket in a 0700 folder; another user's connection is refused", async () => {
  const dir = temporaryDir();
  const server = await startServer({ DATA_DIR: dir.path, DEMO: 'off' });
  try {
    const socket = JSON.parse(readFileSync(join(dir.path, 'readout-socket.json'), 'utf8')).path;
    assert.is(socket, join(dir.path, 'readout.sock'));
    assert.is(statSync(dir.path).mode & 0o777, 0o700);
    assert.is(statSync(socket).mode & 0o777, 0o600);
    assert.ok(statSync(socket).isSocket());
    // No TCP port but the API's: the process listens on nothing else.
    const pid = server.child.pid!;
    const inodes = new Set(
      spawnSync('ls', ['-l', `/proc/${pid}/fd`], { encoding: 'utf8' })
        .stdout.match(/socket:\[(\d+)\]/g)
        ?.map((s) => s.slice(8, -1)),
    );
    const tcp = (readFileSync('/proc/net/tcp', 'utf8') + readFileSync('/proc/net/tcp6', 'utf8'))
      .split('\n')
      .slice(1)
      .map((l) => l.trim().split(/\s+/));
    const listeningPorts = tcp
      .filter((f) => f[3] === '0A' && inodes.has(f[9]))
      .map((f) => parseInt(f[1].split(':').pop()!, 16));
    assert.equal(listeningPorts, [Number(new URL(server.url).port)]);
    // The server's own user gets in (the command line shares the running server's database).
    const list = runSync('node', 'src/cli.ts', ['org', 'list', '--json'], { DATA_DIR: dir.path });
    assert.is(list.status, 0, list.stderr);
    if (
      skipped(
        process.getuid?.() !== 0 || spawnSync('setpriv', ['--version']).status !== 0,
        'lifecycle',
        'another user is refused',
        'needs root and setpriv to connect as another user',
      )
    )
      return;
    const probe = `require('net').connect({ path: ${JSON.stringify(socket)} }).on('connect', () => { console.log('connected'); process.exit(0); }).on('error', (e) => { console.log(e.code); process.exit(0); })`;
    const other = spawnSync(
      'setpriv',
      ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', probe],
      { encoding: 'utf8', cwd: '/' },
    );
    assert.is(other.stdout.trim(), 'EACCES', other.stderr);
  } finally {
    await server.stop('SIGKILL');
    dir.remove();
  }
});

it('the data folder is opened by one process: a live holder without a socket refuses the start, a dead one is taken over', async () => {
  const dir = temporaryDir();
  try {
    writeFileSync(join(dir.path, 'readout.lock'), String(process.pid));
    const refused = runSync('node', 'src/main.ts', [], { PORT: '0', DATA_DIR: dir.path, DEMO: 'off' });
    assert.is(refused.status, 2, refused.stderr);
    assert.match(
      refused.stderr,
      new RegExp(`^readout: DATA_DIR \\S+ is held by process ${process.pid}, whose database does not answer\\n$`),
    );
    // A pid no process has: a crash left the lock behind.
    writeFileSync(join(dir.path, 'readout.lock'), '4194303');
    const server = await startServer({ DATA_DIR: dir.path, DEMO: 'off' });
    try {
      assert.is(readFileSync(join(dir.path, 'readout.lock'), 'utf8'), `${server.child.pid} server`);
      // A second server on the same folder uses the first one's database rather than opening its files again.
      const second = await startServer({ DATA_DIR: dir.path, DEMO: 'off' });
      assert.match(second.output(), /"database":"embedded \(shared, /);
      assert.is(await second.stop(), 0);
      assert.ok(existsSync(join(dir.path, 'readout.sock')), "the second server's exit leaves the first one's socket");
      assert.is((await fetch(`${server.url}/v1/health`)).status, 200);
    } finally {
      assert.is(await server.stop(), 0);
    }
  } finally {
    dir.remove();
  }
});

it.run();
