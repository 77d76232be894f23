// The embedded database (docs/decisions.md §1): PGlite in DATA_DIR, one process's files, served to the others on a
// private Unix socket that only this user can reach.
import postgres from 'postgres';
import { existsSync, statSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { connect } from 'node:net';
import { keepExchangesWhole } from './embeddedQueue.ts';
import { bundled } from '../bundled.ts';
import { silent, type Database, type DatabaseOptions } from './database.ts';
import { errorLine, storageProblem } from './errors.ts';

/** The data folder's problems that stop a start: one line each, for the operator. */
export class DataDirError extends Error {}

const socketFile = (dataDir: string) => join(dataDir, 'readout-socket.json');
const lockFile = (dataDir: string) => join(dataDir, 'readout.lock');

const reachable = (path: string) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ path }, () => (socket.end(), resolve(true)));
    socket.on('error', () => resolve(false));
  });

async function runningSocket(dataDir: string): Promise<string | undefined> {
  let path: string;
  try {
    path = JSON.parse(await readFile(socketFile(dataDir), 'utf8')).path;
  } catch {
    return undefined;
  }
  return typeof path === 'string' && (await reachable(path)) ? path : undefined;
}

/** mkdir -p, by hand: Node's recursive mkdir spins forever on a path it cannot create under /proc. */
async function makeDir(dir: string): Promise<void> {
  const made = (error: { code?: string }) => {
    if (error.code !== 'EEXIST') throw error;
  };
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT' || dirname(dir) === dir) return made(error as { code?: string });
    await makeDir(dirname(dir));
    await mkdir(dir, { mode: 0o700 }).catch(made);
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
};

/**
 * The folder's files are opened by one process only (PGlite is one process's database): the first takes
 * `readout.lock`, every other talks to the first's socket. A lock left by a process that is gone is taken over; one
 * whose process lives but has no socket yet (it is starting) is waited for.
 */
export async function claimDataDir(
  dataDir: string,
  holder: 'server' | 'command' = 'server',
  waiting: (line: string) => void = () => {},
): Promise<{ shared: string } | { release: () => Promise<void> }> {
  try {
    await makeDir(dataDir);
    if (!(await stat(dataDir)).isDirectory()) throw Object.assign(new Error(), { code: 'ENOTDIR' });
    await chmod(dataDir, 0o700);
  } catch (error) {
    throw new DataDirError(
      `DATA_DIR ${dataDir} cannot be used (${(error as { code?: string }).code ?? String(error)})`,
    );
  }
  let deadline = Date.now() + 10_000;
  for (;;) {
    const shared = await runningSocket(dataDir);
    if (shared) return { shared };
    try {
      await writeFile(lockFile(dataDir), `${process.pid} ${holder}`, { flag: 'wx', mode: 0o600 });
      return { release: () => rm(lockFile(dataDir), { force: true }) };
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== 'EEXIST') throw new DataDirError(`DATA_DIR ${dataDir} is not writable (${code ?? String(error)})`);
    }
    const [pid, role] = (await readFile(lockFile(dataDir), 'utf8').catch(() => '')).split(' ');
    const held = Number(pid);
    if (!Number.isInteger(held) || held <= 0 || held === process.pid || !alive(held)) {
      await rm(lockFile(dataDir), { force: true });
      continue;
    }
    // An operator command serves no one: it is waited for, however long it runs.
    if (role === 'command') {
      if (deadline !== Infinity) waiting(`waiting for process ${held}, an operator command, to finish with ${dataDir}`);
      deadline = Infinity;
    } else if (Date.now() > deadline)
      throw new DataDirError(`DATA_DIR ${dataDir} is held by process ${held}, whose database does not answer`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The embedded database's socket: a Unix socket that only this user can reach (its folder 0700, itself 0600), never
 * a TCP port another local user could connect to. In DATA_DIR, or in a private temporary folder when the path would
 * pass the 107 bytes a socket's name may have.
 */
async function socketPath(dataDir: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const inData = resolve(dataDir, 'readout.sock');
  if (Buffer.byteLength(inData) <= 100) {
    await rm(inData, { force: true }); // left by a process that is gone: the lock is ours
    return { path: inData, remove: () => rm(inData, { force: true }) };
  }
  const dir = await mkdtemp(join(tmpdir(), 'readout-'));
  return { path: join(dir, 'readout.sock'), remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * PGlite's settings beside its defaults. shared_buffers 16 MB, not PostgreSQL's 128 MB: PGlite keeps its buffers in
 * the process's own WebAssembly memory, which never shrinks, so they are resident for good, while the files it reads
 * stay in the operating system's cache as well. An embedded database is a small one (BENCHMARKS.md, "Embedded idle
 * memory").
 */
const SETTINGS = ['-c', 'shared_buffers=16MB'];

/** A folder no PGlite has initialised yet. */
export const isFresh = (dataDir: string) => !existsSync(join(dataDir, 'PG_VERSION'));

/** A folder that is missing, or one with no database in it; a path that is not a folder is claimDataDir's to refuse. */
export const holdsNoDatabase = (dataDir: string) =>
  !existsSync(dataDir) || (statSync(dataDir).isDirectory() && isFresh(dataDir));

export async function openEmbedded(options: DatabaseOptions, release: () => Promise<void>): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  let pglite: Awaited<ReturnType<typeof PGlite.create>>;
  try {
    pglite = await PGlite.create({
      dataDir: options.dataDir,
      loadDataDir: options.template,
      startParams: [...PGlite.defaultStartParams, ...SETTINGS],
      ...(await bundled.pglite?.()),
    });
  } catch (error) {
    await release();
    throw options.dataDir
      ? new DataDirError(
          storageProblem(error)
            ? `cannot write the database in DATA_DIR ${options.dataDir}: ${storageProblem(error)}`
            : `DATA_DIR ${options.dataDir} holds no usable database (${errorLine(error)})`,
        )
      : error;
  }
  // A database in memory lives only in tests, whose other processes and fault proxies reach it on a loopback port.
  const socket = options.dataDir ? await socketPath(options.dataDir) : undefined;
  const server = new PGLiteSocketServer({
    db: pglite,
    ...(socket ? { path: socket.path } : { host: '127.0.0.1', port: 0 }),
    maxConnections: 64,
  });
  keepExchangesWhole(server);
  await server.start();
  if (socket) {
    await chmod(socket.path, 0o600);
    if (options.holder !== 'command')
      await writeFile(socketFile(options.dataDir!), JSON.stringify({ path: socket.path }), { mode: 0o600 });
  }
  // PGlite runs one query at a time; a small pool keeps the queue short.
  const where = socket
    ? { path: socket.path }
    : { host: '127.0.0.1', port: Number(server.getServerConn().split(':').pop()) };
  const sql = postgres({ ...where, user: 'postgres', database: 'postgres', max: options.max ?? 4, ...silent });
  return {
    sql,
    poolMode: 'session',
    description: options.dataDir ? `embedded PGlite in ${options.dataDir}` : 'embedded PGlite in memory',
    dump: () => pglite.dumpDataDir('none'),
    async close() {
      await sql.end({ timeout: 5 });
      await server.stop();
      await pglite.close();
      if (options.dataDir) await rm(socketFile(options.dataDir), { force: true });
      await socket?.remove();
      await release();
    },
  };
}
