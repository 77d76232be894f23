// PostgreSQL servers made from scratch in temporary folders, on free loopback ports: a primary and streaming hot
// standbys made with pg_basebackup, from the machine's PostgreSQL binaries (Debian's postgresql package). Used by
// npm run cluster and by the tests that need a real standby; and PgBouncer (Debian's pgbouncer package) in front of
// one of them. Run as root, the servers run as the postgres user.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The newest installed PostgreSQL's bin folder, or undefined when none is installed. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter(
    (v) => existsSync(join(root, v, 'bin', 'pg_basebackup')) && existsSync(join(root, v, 'bin', 'initdb')),
  );
  versions.sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0], 'bin') : undefined;
}

export const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

const asRoot = process.getuid?.() === 0;
const owner = () => {
  const line = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const uid = Number(line.stdout.trim());
  const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid, gid };
};

export type PostgresServer = {
  name: string;
  port: number;
  dir: string;
  url: (database?: string) => string;
  start(): void;
  stop(): void;
  /** Runs SQL through psql on this server as postgres, returning its unaligned output. */
  psql(sql: string, database?: string): string;
};

export type Cluster = {
  bin: string;
  root: string;
  primary: PostgresServer;
  standbys: PostgresServer[];
  remove(): void;
};

/** Runs a PostgreSQL program, as the postgres user when this process is root (initdb refuses root). */
function run(bin: string, program: string, args: string[]): string {
  const command = asRoot
    ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', join(bin, program), ...args]]
    : [join(bin, program), args];
  try {
    return execFileSync(command[0] as string, command[1] as string[], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: '/',
    });
  } catch (error) {
    const e = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${program} ${args.join(' ')} failed: ${e.stderr || e.stdout || e.message}`);
  }
}

function server(bin: string, name: string, dir: string, port: number, socketDir: string): PostgresServer {
  return {
    name,
    port,
    dir,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    start: () => void run(bin, 'pg_ctl', ['-D', dir, '-l', `${dir}.log`, '-w', '-t', '60', 'start']),
    stop: () => void run(bin, 'pg_ctl', ['-D', dir, '-m', 'fast', '-w', '-t', '60', 'stop']),
    psql: (sql, database = 'postgres') =>
      run(bin, 'psql', [
        '-X',
        '-A',
        '-t',
        '-h',
        socketDir,
        '-p',
        String(port),
        '-U',
        'postgres',
        '-d',
        database,
        '-c',
        sql,
      ]).trim(),
  };
}

/** A primary and `standbys` streaming standbys, started; remove() stops them and deletes their folders. */
export async function startCluster(standbys = 1): Promise<Cluster> {
  const bin = postgresBin();
  if (!bin) throw new Error("no PostgreSQL server binaries (install Debian's postgresql package)");
  const root = mkdtempSync(join(tmpdir(), 'readout-cluster-'));
  if (asRoot) {
    const { uid, gid } = owner();
    chownSync(root, uid, gid);
  }
  const started: PostgresServer[] = [];
  let removed = false;
  // A process that ends without calling remove() (a test that crashed) still stops its servers on the way out.
  const onExit = () => remove();
  process.once('exit', onExit);
  const remove = () => {
    if (removed) return;
    removed = true;
    process.off('exit', onExit);
    for (const s of started.reverse()) {
      try {
        s.stop();
      } catch {
        // already stopped
      }
    }
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const primaryDir = join(root, 'primary');
    run(bin, 'initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    const primary = server(bin, 'primary', primaryDir, await freePort(), root);
    // Test servers: durability off (nothing here outlives the run); replication on; a short WAL sender timeout so a
    // stopped standby is noticed.
    appendFileSync(
      join(primaryDir, 'postgresql.conf'),
      `\nlisten_addresses = '127.0.0.1'\nport = ${primary.port}\nunix_socket_directories = '${root}'\nfsync = off\nfull_page_writes = off\nwal_level = replica\nmax_wal_senders = 10\nhot_standby = on\nmax_connections = 200\nshared_buffers = 64MB\n`,
    );
    primary.start();
    started.push(primary);
    const replicas: PostgresServer[] = [];
    for (let i = 1; i <= standbys; i++) {
      const dir = join(root, `standby${i}`);
      run(bin, 'pg_basebackup', [
        '-h',
        '127.0.0.1',
        '-p',
        String(primary.port),
        '-U',
        'postgres',
        '-D',
        dir,
        '-R',
        '-X',
        'stream',
        '--no-sync',
      ]);
      const standby = server(bin, `standby${i}`, dir, await freePort(), root);
      appendFileSync(join(dir, 'postgresql.conf'), `\nport = ${standby.port}\nhot_standby_feedback = on\n`);
      standby.start();
      started.push(standby);
      replicas.push(standby);
    }
    return { bin, root, primary, standbys: replicas, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** Writes a file a server reads (pg_hba.conf, say), owned as the server's files are. */
export function writeServerFile(path: string, text: string): void {
  writeFileSync(path, text);
  if (asRoot) {
    const { uid, gid } = owner();
    chownSync(path, uid, gid);
  }
}

/** Debian's PgBouncer, or undefined when it is not installed. */
export function pgbouncerBin(): string | undefined {
  return ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((path) => existsSync(path));
}

export type Bouncer = { port: number; pid: number; url: (database?: string) => string; stop(): Promise<void> };

/**
 * PgBouncer in transaction pooling mode in front of `target`, in a folder of `root`, on a free loopback port: every
 * database name passes through; trust auth, as the test servers have. poolSize: server connections per database and
 * user, small so that a client's transactions land on different backends.
 */
export async function startPgBouncer(root: string, target: { port: number }, poolSize = 4): Promise<Bouncer> {
  const bin = pgbouncerBin();
  if (!bin) throw new Error("no PgBouncer (install Debian's pgbouncer package)");
  const port = await freePort();
  const dir = join(root, `pgbouncer-${port}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'users.txt'), '"postgres" ""\n');
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=127.0.0.1 port=${target.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      'auth_type = trust',
      'admin_users = postgres',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 500',
      'server_check_delay = 0',
      // A server that refused a login is tried again after this many seconds (15 by default).
      'server_login_retry = 1',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  if (asRoot) {
    const { uid, gid } = owner();
    for (const file of ['', 'users.txt', 'pgbouncer.ini']) chownSync(join(dir, file), uid, gid);
  }
  // PgBouncer refuses to run as root.
  const child: ChildProcess = asRoot
    ? spawn('setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', bin, join(dir, 'pgbouncer.ini')], {
        stdio: 'ignore',
        cwd: '/',
      })
    : spawn(bin, [join(dir, 'pgbouncer.ini')], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const onExit = () => child.kill('SIGKILL');
  process.once('exit', onExit);
  void exited.then(() => process.off('exit', onExit));
  const end = Date.now() + 10_000;
  while (!(await reachable(port))) {
    if (child.exitCode !== null || Date.now() > end) {
      child.kill('SIGKILL');
      throw new Error(
        `PgBouncer did not start: ${readFileSync(join(dir, 'pgbouncer.log'), 'utf8').trim().split('\n').slice(-3).join(' | ')}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    port,
    pid: child.pid!, // setpriv execs PgBouncer in its own process
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}

const reachable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => (socket.end(), resolve(true)));
    socket.on('error', () => resolve(false));
  });
