// Where reads run (docs/decisions.md §1, §13): the primary's connections lent whole to report data and exports, and
// the standbys of DATABASE_REPLICA_URLS, each opened as the primary's pool is, with heavy connections of its own.
import type { Config } from '../config.ts';
import { postgresPool, SHARED_STATEMENT_TIMEOUT_MS, type Sql } from './database.ts';
import { connectionOptionsOf, exclusivePool, type ExclusivePool } from './exclusive.ts';
import { query } from './queries.ts';
import { primaryOnly, replicaReads, type ReadSource, type Reads } from './replicas.ts';

/** What the read sources are built from. */
export type ReadSettings = Pick<
  Config,
  'replicaUrls' | 'replicaMaxLagMs' | 'poolMode' | 'heavyConnections' | 'heavyPerOrganization' | 'requestDeadlineMs'
>;

/**
 * The standbys of DATABASE_REPLICA_URLS, opened as the primary's pool is, each with its own connections for heavy
 * requests; without any, the primary alone.
 */
export function standbyReads(primary: ReadSource, config: ReadSettings): Reads {
  if (!config.replicaUrls.length) return primaryOnly(primary);
  return replicaReads(primary, {
    urls: config.replicaUrls,
    maxLagMs: config.replicaMaxLagMs,
    open: (url) =>
      postgresPool({ databaseUrl: url, statementTimeoutMs: SHARED_STATEMENT_TIMEOUT_MS, poolMode: config.poolMode })
        .sql,
    heavy: (sql) => heavyPool(sql, config),
  });
}

/**
 * The connections report data and exports borrow, opened like `sql`'s own; their statements end on the server a
 * little after the request deadline. pg_terminate_backend ends one of our own backends (same role): the way to stop
 * a COPY blocked on its socket.
 */
export function heavyPool(sql: Sql, config: ReadSettings): ExclusivePool {
  return exclusivePool(
    () => connectionOptionsOf(sql),
    config.heavyConnections,
    (pid) => query(sql, 'terminate-backend', { pid }),
    config.requestDeadlineMs + 5000,
    config.poolMode,
    config.heavyPerOrganization,
  );
}
