// Opens the store: PostgreSQL at DATABASE_URL, or embedded PGlite served on a loopback port (DECISIONS §1).
import postgres from 'postgres';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect } from 'node:net';
import { keepExchangesWhole } from './embeddedQueue.ts';

export type Sql = postgres.Sql;

export type Database = {
  sql: Sql;
  /** Where the data lives, without credentials, for logs. */
  description: string;
  close(): Promise<void>;
  /** Embedded only: the data folder as a tarball, which `template` loads again (tests start from a migrated one). */
  dump?: () => Promise<Blob>;
};

export type DatabaseOptions = {
  databaseUrl?: string;
  /** Embedded only: the folder; undefined keeps the database in memory (tests). */
  dataDir?: string;
  /** Embedded only: a tarball of a data folder to start from, as dump() gives it, instead of an empty one. */
  template?: Blob;
  /** postgres.js pool size. */
  max?: number;
  /**
   * The server's writes are quota counters: committing them without waiting for the WAL flush doubles the charges
   * a second. A crash of the database host can lose the last fraction of a second of charges, never admit a call
   * beyond the budget while it runs.
   */
  asyncCommit?: boolean;
  /**
   * PostgreSQL only: every statement of the pool ends on the server after this long. The shared pool's statements
   * are small (tokens, plans, charges, lists); a charge that waits past it on a locked window is cancelled by
   * PostgreSQL itself, so the 503 its caller got is never charged later (DECISIONS §4).
   */
  statementTimeoutMs?: number;
};

// postgres.js retries a connection that fails while starting, with a backoff growing to 20 s; capped at 2 s here so
// service resumes within seconds of the database returning. Each request bounds its own wait meanwhile.
const silent = { onnotice: () => {}, backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 2) };

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    // JIT compiles a report query for longer than the query runs, at every size this service's queries have
    // (BENCHMARKS.md), so it is off for the service's connections.
    // extra_float_digits 1 (PostgreSQL's default, set here in case a role or database lowers it): doubles are sent
    // in their shortest exact form, which the server parses back to the same value and exports rendered by
    // PostgreSQL write as JavaScript would (migration 012).
    const connection = {
      jit: 'off',
      extra_float_digits: '1',
      ...(options.asyncCommit ? { synchronous_commit: 'off' } : {}),
      ...(options.statementTimeoutMs ? { statement_timeout: String(options.statementTimeoutMs) } : {}),
    };
    const sql = postgres(options.databaseUrl, { ...silent, max: options.max ?? 10, connection: connection as Record<string, string> });
    const url = new URL(options.databaseUrl);
    return { sql, description: `postgresql://${url.host}${url.pathname}`, close: () => sql.end({ timeout: 5 }) };
  }
  if (options.dataDir) {
    // A server already holds this folder: talk to its socket rather than open the files twice.
    const running = await runningEmbeddedPort(options.dataDir);
    if (running) {
      const sql = postgres({ host: '127.0.0.1', port: running, user: 'postgres', database: 'postgres', max: 1, ...silent });
      return { sql, description: `embedded (shared, port ${running})`, close: () => sql.end({ timeout: 5 }) };
    }
  }
  return openEmbedded(options);
}

const portFile = (dataDir: string) => join(dataDir, 'readout-socket.json');

async function runningEmbeddedPort(dataDir: string): Promise<number | undefined> {
  let port: number;
  try {
    port = JSON.parse(await readFile(portFile(dataDir), 'utf8')).port;
  } catch {
    return undefined;
  }
  const reachable = await new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => (socket.end(), resolve(true)));
    socket.on('error', () => resolve(false));
  });
  return reachable ? port : undefined;
}

async function openEmbedded(options: DatabaseOptions): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true });
  const pglite = await PGlite.create({ dataDir: options.dataDir, loadDataDir: options.template });
  const server = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port: 0, maxConnections: 64 });
  keepExchangesWhole(server);
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  if (options.dataDir) await writeFile(portFile(options.dataDir), JSON.stringify({ port }));
  // PGlite runs one query at a time; a small pool keeps the queue short.
  const sql = postgres({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', max: options.max ?? 4, ...silent });
  return {
    sql,
    description: options.dataDir ? `embedded PGlite in ${options.dataDir}` : 'embedded PGlite in memory',
    dump: () => pglite.dumpDataDir('none'),
    async close() {
      await sql.end({ timeout: 5 });
      await server.stop();
      await pglite.close();
      if (options.dataDir) await rm(portFile(options.dataDir), { force: true });
    },
  };
}
