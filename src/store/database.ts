// PostgreSQL connections: the shared pool's settings, transactions, and whether a pooler stands in front. The embedded
// database is embedded.ts; openDatabase (open.ts) picks one (docs/decisions.md §1).
import postgres from 'postgres';
import type { PoolMode } from '../config.ts';

export type Sql = postgres.Sql;

export type Database = {
  sql: Sql;
  /** How the connections keep their settings: transaction behind a transaction pooler (DatabaseOptions.poolMode). */
  poolMode: PoolMode;
  /** Where the data lives, without credentials, for logs. */
  description: string;
  close(): Promise<void>;
  /** Embedded only: the data folder as a tarball, which `template` loads again (tests start from a migrated one). */
  dump?: () => Promise<Blob>;
  /**
   * Embedded, served by another process: whether that process still listens. A query on a connection whose server
   * died may never settle (postgres.js), so a command asks this rather than wait on it.
   */
  served?: () => Promise<boolean>;
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
   * Embedded only: who opens the folder. A server serves it to other processes on its socket; an operator command
   * does not (it ends soon, and would cut off whoever it served), so another process waits for it to finish.
   */
  holder?: 'server' | 'command';
  /** Embedded only: told once when the folder is held by an operator command that this open waits for. */
  waiting?: (line: string) => void;
  /**
   * The server's writes are quota counters: committing them without waiting for the WAL flush doubles the charges
   * a second. A crash of the database host can lose the last fraction of a second of charges, never admit a call
   * beyond the budget while it runs.
   */
  asyncCommit?: boolean;
  /**
   * PostgreSQL only: every statement of the pool ends on the server after this long. The shared pool's statements
   * are small (tokens, plans, charges, lists); a charge that waits past it on a locked window is cancelled by
   * PostgreSQL itself, so the 503 its caller got is never charged later (docs/decisions.md §4).
   */
  statementTimeoutMs?: number;
  /**
   * PostgreSQL only. transaction: the URL is a pooler in transaction pooling mode (PgBouncer), which hands each
   * transaction whatever server connection is free and refuses settings at startup: no named prepared statements and
   * no startup settings; what needs a setting sets it LOCAL in a transaction of its own (localSettings). auto
   * (openDatabase only): transaction when the server refuses the settings at startup, as PgBouncer does.
   */
  poolMode?: PoolMode | 'auto';
};

// postgres.js retries a connection that fails while starting, with a backoff growing to 20 s; capped at 2 s here so
// service resumes within seconds of the database returning. Each request bounds its own wait meanwhile.
export const silent = {
  onnotice: () => {},
  backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 2),
  connect_timeout: 10,
};

/** A database URL without its credentials, for logs and messages. */
export function databaseDescription(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `postgresql://${url.host}${url.pathname}`;
}

/** Below the 3 s a charge waits in the process (quota.ts), so PostgreSQL ends a charge before its caller gives up. */
export const SHARED_STATEMENT_TIMEOUT_MS = 2500;

/**
 * The session settings of the service's connections. JIT compiles a report query for longer than the query runs, at
 * every size this service's queries have (BENCHMARKS.md), so it is off. extra_float_digits 1 (PostgreSQL's default,
 * set in case a role or database lowers it): doubles are sent in their shortest exact form, which the server parses
 * back to the same value and exports rendered by PostgreSQL write as JavaScript would (migration 012).
 */
export function sessionSettings(options: {
  asyncCommit?: boolean;
  statementTimeoutMs?: number;
}): Record<string, string> {
  return {
    jit: 'off',
    extra_float_digits: '1',
    ...(options.asyncCommit ? { synchronous_commit: 'off' } : {}),
    ...(options.statementTimeoutMs ? { statement_timeout: String(options.statementTimeoutMs) } : {}),
  };
}

/** One statement setting them all for the current transaction only (SET LOCAL), for a transaction pooler. */
export function setLocal(settings: Record<string, string>): string {
  const each = Object.entries(settings).map(
    ([name, value]) => `set_config('${name}', '${value.replace(/'/g, "''")}', true)`,
  );
  return `select ${each.join(', ')}`;
}

/**
 * Runs work with `settings` in force. On a session of its own they are already set (postgresPool); behind a
 * transaction pooler, work runs in a transaction that sets them LOCAL first, pipelined with it.
 */
export type WithSettings = <T>(work: (sql: Sql) => Promise<T>) => Promise<T>;

export function localSettings(sql: Sql, poolMode: PoolMode | 'auto', settings: Record<string, string>): WithSettings {
  if (poolMode !== 'transaction') return (work) => work(sql);
  const begin = `begin; ${setLocal(settings)}`;
  return (work) => transaction(sql, work, begin);
}

/**
 * sql.begin, on a reserved connection. postgres.js's own begin fails when pipelining is off (porsager/postgres#1210),
 * and behind a transaction pooler it must be (postgresPool). begin: the statements that open the transaction.
 */
export async function transaction<T>(sql: Sql, work: (tx: Sql) => Promise<T>, begin = 'begin'): Promise<T> {
  const tx = await sql.reserve();
  try {
    await tx.unsafe(begin).simple();
    const result = await work(tx);
    await tx.unsafe('commit').simple();
    return result;
  } catch (error) {
    // Only a connection that is gone fails to roll back, and postgres.js opens a new one in its place.
    await tx
      .unsafe('rollback')
      .simple()
      .catch(() => {});
    throw error;
  } finally {
    tx.release();
  }
}

/** A postgres.js pool on a PostgreSQL server, with the service's session settings. */
export function postgresPool(options: DatabaseOptions & { databaseUrl: string }): Database {
  const pooled = options.poolMode === 'transaction';
  const sql = postgres(options.databaseUrl, {
    ...silent,
    max: options.max ?? 10,
    // PgBouncer refuses any startup setting it does not know ("unsupported startup parameter"), and a named prepared
    // statement lives on one server connection, which the next transaction may not get. Nor is a statement sent
    // behind another still under way: postgres.js asks for a parameterized statement's types before it binds it
    // (Parse, Describe, Flush: no Sync), and PgBouncer hands the server on at the first one's ReadyForQuery, so the
    // second's answer never came (seen here with PgBouncer 1.18; MagicStack/asyncpg#1065 describes the same).
    ...(pooled ? { prepare: false, max_pipeline: 0 } : { connection: sessionSettings(options) }),
  });
  return {
    sql,
    poolMode: pooled ? 'transaction' : 'session',
    description: databaseDescription(options.databaseUrl),
    close: () => sql.end({ timeout: 5 }),
  };
}

/**
 * Whether the server at the URL takes the service's settings at startup (PostgreSQL, or a pooler passing them on)
 * or refuses them, as PgBouncer does ("unsupported startup parameter"): then it is a pooler, taken to pool by
 * transaction, which also serves one that pools by session. Any other failure is thrown, as the first query's would be.
 */
export async function detectPoolMode(databaseUrl: string): Promise<PoolMode> {
  const probe = postgres(databaseUrl, { ...silent, max: 1, fetch_types: false, connection: sessionSettings({}) });
  try {
    await probe`select 1`;
    return 'session';
  } catch (error) {
    if (/unsupported startup parameter/.test((error as Error).message ?? '')) return 'transaction';
    throw error;
  } finally {
    await probe.end({ timeout: 0 }).catch(() => {});
  }
}
