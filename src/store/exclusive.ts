// Connections lent whole to one request for its heavy work (report data, exports), apart from the shared pool.
//
// postgres.js pipelines a query onto a connection that is still busy when its pool has none free, and a COPY or a
// cursor keeps its connection mid-protocol for as long as the client reads: another request's query could land
// behind an export that was given up on, fail with COPY_IN_PROGRESS, or read that export's rows. Here a connection
// serves one request at a time and goes back only when that request read its answer to the end (ReadyForQuery seen);
// one given up on (client gone, HEAD, deadline, error) has its backend terminated and its socket destroyed, never
// reused.
//
// Behind a transaction pooler (DATABASE_POOL_MODE=transaction) the backend is PgBouncer's to give to anyone between
// transactions: each exchange is a transaction of its own, which sets the connection's settings LOCAL and learns its
// backend, and a backend is ended only while that transaction is open, so never one already serving someone else.
// A transaction is held only while its statement runs: one held for a whole request would keep a server connection
// from the shared pool's queries that the request waits on, and with PgBouncer's pool full, no request would finish.
import { connect, type Socket } from 'node:net';
import postgres from 'postgres';
import { sessionSettings, setLocal, type Sql } from './database.ts';
import type { PoolMode } from '../config.ts';
import { query } from './queries.ts';
import { fairSlots } from './fairSlots.ts';

/** What it takes to open one more connection like those of a pool. */
export type ConnectionOptions = {
  host: string[];
  port: number[];
  path?: string;
  user: string;
  pass?: unknown;
  database: string;
  ssl?: unknown;
  connection?: Record<string, unknown>;
};

/** Ends a backend on the server, through another connection (pg_terminate_backend). */
export type Terminate = (pid: number) => Promise<unknown>;

/** One connection, this request's alone until it is given back. */
export class Lent {
  /** Its backend's process id; null where the server cannot end one (the embedded database: one session for all). */
  pid: number | null | undefined;
  /** The organization it is lent to, whose place it holds (fairSlots). */
  owner = '';
  private dead = false;
  /** Set only by finished(): a connection handed out counts as mid-exchange until its holder says otherwise. */
  private idle = false;
  /** Behind a transaction pooler: this exchange's transaction is open. */
  private open = false;
  /** Behind a transaction pooler: the connection has been made (identify). */
  private connected = false;

  /**
   * transaction: behind a transaction pooler, the statements that open each exchange's transaction (begin, settings,
   * pid).
   */
  constructor(
    readonly sql: Sql,
    private readonly socket: () => Socket | undefined,
    private readonly terminate: Terminate,
    private readonly transaction?: string,
  ) {}

  /** Whether the connection has been given up (destroyed, or its socket closed under us). */
  get broken(): boolean {
    return this.dead;
  }

  /** Whether its last exchange was read to the end: only then may it serve another request. */
  get clean(): boolean {
    return this.idle && !this.dead;
  }

  /**
   * An exchange starts: until finished() the connection is mid-protocol. Behind a transaction pooler its transaction
   * opens first: postgres.js sends statements in the order they are made, so it goes before the exchange's own.
   */
  busy(): void {
    this.idle = false;
    if (!this.transaction || this.open) return;
    this.open = true;
    void this.sql
      .unsafe(this.transaction)
      .simple()
      .then(
        (results) => {
          if (this.open) this.pid = (results as unknown as { pid: number }[][]).at(-1)![0].pid;
        },
        () => {},
      );
  }

  /**
   * The exchange was read to its end (ReadyForQuery seen): the connection is idle. Behind a transaction pooler its
   * transaction ends, and from then its backend may serve others, so it is never ended from here.
   */
  finished(): void {
    if (this.open) {
      this.open = false;
      if (this.transaction) this.pid = undefined;
      // Sent before whatever the next holder sends; one that fails leaves the connection in an unknown state.
      this.sql.unsafe('commit').catch(() => this.abandon());
    }
    this.idle = true;
  }

  /**
   * Sets each named setting to its value for this exchange alone (LOCAL, docs/decisions.md §6: a client's values are
   * bound, and a COPY takes no parameters, so it reads them from settings): in the exchange's transaction, opened here
   * unless a transaction pooler's already is, and committed by finished().
   */
  async bind(names: readonly string[], values: readonly string[]): Promise<void> {
    if (!this.open) {
      this.open = true;
      void this.sql
        .unsafe('begin')
        .simple()
        .catch(() => {});
    }
    const sets = names.map((name, i) => `set_config('${name}', $${i + 1}, true)`);
    await this.sql.unsafe(`select ${sets.join(', ')}`, values as string[]);
  }

  /** Reads the socket again after a COPY, whose stream postgres.js paused it for and does not resume once ended. */
  resume(): void {
    this.socket()?.resume();
  }

  /**
   * Learns its backend, so that it can be ended from outside; once per connection. Behind a transaction pooler each
   * exchange learns its own, and this only waits for the connection to be made: postgres.js's first query on a new
   * connection (fetch_types) fails unheard, an unhandled rejection, if the connection is destroyed under it.
   */
  async identify(): Promise<void> {
    if (this.transaction) {
      if (!this.connected) await this.sql.unsafe('select 1').simple();
      this.connected = true;
      return;
    }
    if (this.pid !== undefined) return;
    const [row] = await query(this.sql, 'get-backend');
    this.pid = row.embedded ? null : row.pid;
  }

  /** Handed to a request: mid-exchange until it says finished(), so a connection it never got to use is not reused. */
  handedOut(): Lent {
    this.idle = false;
    return this;
  }

  /** The socket closed under us (a backend killed, the server restarted): nothing more may be sent on it. */
  markDead(): void {
    this.dead = true;
  }

  /**
   * Gives the connection up: its backend is terminated (whether computing, waiting on a lock or blocked writing a
   * COPY to us: a cancel is not read while a backend is blocked on its socket) and the socket destroyed. Nothing is
   * sent on it afterwards: postgres.js would write to a socket it has already dropped.
   */
  abandon(): void {
    const wasDead = this.dead;
    this.dead = true;
    if (!wasDead && this.pid) this.terminate(this.pid).catch(() => {});
    this.socket()?.destroy();
    void this.sql.end({ timeout: 0 }).catch(() => {});
  }
}

export type ExclusivePool = {
  /**
   * A connection of its own for the caller, lent to owner (an organization); waits for one while `size` are lent, or
   * owner holds its share, until signal aborts.
   */
  lend(signal: AbortSignal, owner?: string): Promise<Lent>;
  /** clean: its last exchange was read to the end, so the connection is idle; otherwise it is abandoned. */
  giveBack(lent: Lent, clean: boolean): void;
  close(): Promise<void>;
  /** Lent out, waiting for one, and the most there may be: for the metrics. */
  stats(): { inUse: number; waiting: number; size: number };
};

const quiet = { onnotice: () => {}, max: 1, fetch_types: true, idle_timeout: 60 };

/** The options of an existing pool, to open more of the same connections (sql.options, as postgres.js parsed them). */
export function connectionOptionsOf(sql: Sql): ConnectionOptions {
  const o = sql.options as unknown as ConnectionOptions;
  return {
    host: o.host,
    port: o.port,
    path: o.path || undefined,
    user: o.user,
    pass: o.pass,
    database: o.database,
    ssl: o.ssl,
    connection: o.connection,
  };
}

/**
 * statementTimeoutMs: a server-side bound on each heavy statement (the request deadline and a margin), so a query
 * outlives its request by no more than that even if this process is gone; it replaces the shared pool's shorter one.
 * perOwner: the most one organization holds at once (docs/decisions.md §13).
 */
export function exclusivePool(
  connectionOptions: () => ConnectionOptions,
  size: number,
  terminate: Terminate,
  statementTimeoutMs: number,
  poolMode: PoolMode | 'auto' = 'session',
  perOwner = size,
): ExclusivePool {
  const pooled = poolMode === 'transaction';
  const settings = sessionSettings({ statementTimeoutMs });
  const beginStatement = `begin; ${setLocal(settings)}; select pg_backend_pid() as pid`;
  const idle: Lent[] = [];
  const places = fairSlots(size, perOwner);
  let closed = false;

  function open(): Lent {
    const options = connectionOptions();
    let socket: Socket | undefined;
    let holder: Lent | undefined;
    const sql = postgres({
      ...quiet,
      host: options.host[0],
      port: options.port[0],
      path: options.path,
      user: options.user,
      pass: options.pass as string | undefined,
      database: options.database,
      ssl: options.ssl as boolean | undefined,
      // Behind a transaction pooler: no named statements, and nothing sent behind a statement still under way
      // (postgresPool).
      ...(pooled
        ? { prepare: false, max_pipeline: 0 }
        : { connection: { ...(options.connection as Record<string, string>), ...settings } }),
      // Our own socket, so that a connection given up on can be destroyed at once rather than ended politely.
      socket: () => {
        socket = options.path ? connect(options.path) : connect({ host: options.host[0], port: options.port[0] });
        socket.setNoDelay(true);
        socket.once('close', () => holder?.markDead());
        return socket;
      },
    } as unknown as postgres.Options<Record<string, never>>);
    holder = new Lent(sql, () => socket, terminate, pooled ? beginStatement : undefined);
    return holder;
  }

  function handOut(owner: string): Lent {
    let connection: Lent | undefined;
    while (!connection && idle.length > 0) {
      const next = idle.pop()!;
      if (!next.broken) connection = next.handedOut();
    }
    connection ??= open();
    connection.owner = owner;
    return connection;
  }

  /** A connection that knows its backend; one that cannot even say so is given back broken. */
  async function ready(connection: Lent): Promise<Lent> {
    try {
      await connection.identify();
      return connection;
    } catch (error) {
      pool.giveBack(connection, false);
      throw error;
    }
  }

  const pool: ExclusivePool = {
    async lend(signal, owner = '') {
      if (closed) throw new Error('the database is closing');
      await places.acquire(owner, signal);
      return ready(handOut(owner));
    },

    giveBack(connection, clean) {
      if (!clean || !connection.clean || closed) connection.abandon();
      else idle.push(connection);
      places.release(connection.owner);
    },

    stats: () => ({ ...places.stats(), size }),

    async close() {
      closed = true;
      places.close(new Error('the database is closing'));
      await Promise.all(idle.splice(0).map((connection) => connection.sql.end({ timeout: 1 }).catch(() => {})));
    },
  };
  return pool;
}
