// The service's configuration, read from the environment and checked once at start-up (docs/decisions.md §2).
import * as v from 'valibot';
import { resolve } from 'node:path';
import { nearest } from './http/nearest.ts';
import pkg from '../package.json' with { type: 'json' };

/**
 * The one version (CHANGELOG.md, docs/compatibility.md): package.json's, shown by `readout --version`, /v1/health and
 * the OpenAPI document's info.version, which a test holds equal to it.
 */
export const VERSION: string = pkg.version;

const port = v.pipe(
  v.string(),
  v.regex(/^\d{1,5}$/, 'must be a port number'),
  v.transform(Number),
  v.integer(),
  v.minValue(0),
  v.maxValue(65535),
);
const positive = (what: string) =>
  v.pipe(
    v.string(),
    v.regex(/^\d+$/, `must be a whole number of ${what}`),
    v.transform(Number),
    v.integer(),
    v.minValue(1, `must be at least 1 ${what}`),
  );
const httpUrl = v.pipe(v.string(), v.url('must be an absolute URL'), v.regex(/^https?:\/\//, 'must be an http(s) URL'));

const postgresUrl = v.pipe(v.string(), v.regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'));
// An empty entry (",,", a trailing comma) is a mistake in the list, never a standby fewer: refused at start.
const postgresUrls = v.pipe(
  v.string(),
  v.transform((list) => list.split(',').map((url) => url.trim())),
  v.check((urls) => !urls.includes(''), 'must not hold an empty entry (two commas together, or one at an end)'),
  v.check(
    (urls) => urls.every((url) => /^postgres(ql)?:\/\/./.test(url)),
    'must be postgres:// URLs separated by commas',
  ),
);

const EnvSchema = v.object({
  PORT: v.optional(port, '8080'),
  HOST: v.optional(v.pipe(v.string(), v.nonEmpty('must not be empty')), '127.0.0.1'),
  DATABASE_URL: v.optional(postgresUrl),
  DATABASE_REPLICA_URLS: v.optional(postgresUrls),
  REPLICA_MAX_LAG_MS: v.optional(positive('milliseconds'), '1000'),
  MIGRATION_DATABASE_URL: v.optional(postgresUrl),
  DATABASE_POOL_MODE: v.optional(
    v.picklist(['auto', 'session', 'transaction'], 'must be auto, session or transaction'),
    'auto',
  ),
  DATA_DIR: v.optional(v.pipe(v.string(), v.nonEmpty('must not be empty')), './data'),
  BASE_URL: v.optional(httpUrl),
  PROBLEMS_URL: v.optional(httpUrl),
  REQUEST_DEADLINE_MS: v.optional(positive('milliseconds'), '30000'),
  TOKEN_TTL_S: v.optional(positive('seconds'), '3600'),
  DEMO: v.optional(v.picklist(['on', 'auto', 'off'], 'must be on (or auto) or off')),
  HEAVY_PER_CLIENT: v.optional(positive('requests'), '4'),
  HEAVY_CONNECTIONS: v.optional(positive('connections')),
  HEAVY_PER_ORGANIZATION: v.optional(positive('connections')),
  DOWNLOAD_STALL_S: v.optional(positive('seconds'), '10'),
  HEADERS_TIMEOUT_S: v.optional(positive('seconds'), '10'),
  KEEP_ALIVE_TIMEOUT_S: v.optional(positive('seconds'), '65'),
  MAX_CONNECTIONS: v.optional(positive('connections')),
  METRICS_PORT: v.optional(port),
  TLS_CERT_FILE: v.optional(v.string()),
  TLS_KEY_FILE: v.optional(v.string()),
});

export type Config = {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  /** Hot standbys of DATABASE_URL that reads may go to (docs/decisions.md §1); empty: every read is the primary's. */
  replicaUrls: string[];
  /** A standby further behind than this is skipped until it catches up. */
  replicaMaxLagMs: number;
  /** Where migrations run and take their lock: a direct connection to the primary, not a pooler. */
  migrationDatabaseUrl: string | undefined;
  /**
   * transaction: DATABASE_URL (and the standbys') is a pooler in transaction pooling mode, PgBouncer's pool_mode =
   * transaction, so nothing is kept on a connection between transactions (database.ts). auto: transaction when the
   * server refuses the settings sent at startup, as PgBouncer does; openDatabase decides. An explicit
   * MIGRATION_DATABASE_URL is a direct connection.
   */
  poolMode: PoolMode | 'auto';
  migrationPoolMode: PoolMode | 'auto';
  dataDir: string;
  baseUrl: string;
  problemsUrl: string;
  requestDeadlineMs: number;
  tokenTtlSeconds: number;
  /** auto: seed the demo organization on a database with none; off by default on PostgreSQL (docs/decisions.md §2). */
  demo: 'auto' | 'off';
  /** Report data and export requests one client may run at once (docs/decisions.md §13). */
  heavyPerClient: number;
  /** Connections for report data and exports, apart from the shared pool: 10 on PostgreSQL, 4 embedded. */
  heavyConnections: number;
  /** The most of them one organization holds at once: half, rounded up, unless set (docs/decisions.md §13). */
  heavyPerOrganization: number;
  /** A streamed answer whose reader takes nothing this long is cut and its connection given back. */
  downloadStallMs: number;
  /** When client connections end (docs/operations.md, "Connections"); maxConnections unset: from the file limit. */
  connections: { headersTimeoutMs: number; keepAliveTimeoutMs: number; maxConnections?: number };
  /** Prometheus text on GET /metrics of this port (on HOST), apart from the API's; unset: no metrics. */
  metricsPort: number | undefined;
  /** PEM files: with both set the server speaks HTTPS only. */
  tls: { certFile: string; keyFile: string } | undefined;
};

export type PoolMode = 'session' | 'transaction';

export class ConfigError extends Error {}

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

/** Reads the configuration; an unset or empty variable takes its default. Throws ConfigError with one line. */
/**
 * Heavy connections on PostgreSQL: two a core, up to 10, and one more than a client may hold. A report or an export
 * keeps a backend busy for its whole query; many more of them than the cores made every other backend, cheap requests'
 * included, wait its turn for a core, and finished no more work (BENCHMARKS.md, "What makes it fast").
 * A download its client stalls holds its connection, idle, until the deadline: one client's HEAVY_PER_CLIENT of them
 * must leave one for everybody else. The API's cores stand for the database's; HEAVY_CONNECTIONS says otherwise.
 */
export const heavyConnectionsFor = (cores: number, perClient: number) =>
  Math.max(perClient + 1, Math.min(10, 2 * (Math.floor(cores) || 1)));

/** cores: the machine's (navigator.hardwareConcurrency), for the default of HEAVY_CONNECTIONS. */
export function loadConfig(
  env: Record<string, string | undefined>,
  cores = globalThis.navigator?.hardwareConcurrency ?? 2,
): Config {
  const present = Object.fromEntries(
    Object.keys(EnvSchema.entries).flatMap((key) => (env[key] ? [[key, env[key]]] : [])),
  );
  const parsed = v.safeParse(EnvSchema, present);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const key = v.getDotPath(issue) ?? 'environment';
    throw new ConfigError(`invalid configuration: ${key}=${JSON.stringify(present[key] ?? '')} ${issue.message}`);
  }
  const e = parsed.output;
  if (Boolean(e.TLS_CERT_FILE) !== Boolean(e.TLS_KEY_FILE)) {
    throw new ConfigError(
      `invalid configuration: ${e.TLS_CERT_FILE ? 'TLS_KEY_FILE' : 'TLS_CERT_FILE'} must be set with ` +
        `${e.TLS_CERT_FILE ? 'TLS_CERT_FILE' : 'TLS_KEY_FILE'}`,
    );
  }
  if (e.DATABASE_REPLICA_URLS?.length && !e.DATABASE_URL) {
    throw new ConfigError(
      'invalid configuration: DATABASE_REPLICA_URLS needs DATABASE_URL, the primary (the embedded database has no ' +
        'standbys)',
    );
  }
  if (e.MIGRATION_DATABASE_URL && !e.DATABASE_URL)
    throw new ConfigError('invalid configuration: MIGRATION_DATABASE_URL needs DATABASE_URL');
  if (e.DATABASE_POOL_MODE !== 'auto' && !e.DATABASE_URL)
    throw new ConfigError(
      'invalid configuration: DATABASE_POOL_MODE needs DATABASE_URL (the embedded database has no pooler)',
    );
  const tls = e.TLS_CERT_FILE && e.TLS_KEY_FILE ? { certFile: e.TLS_CERT_FILE, keyFile: e.TLS_KEY_FILE } : undefined;
  const heavyConnections = e.HEAVY_CONNECTIONS ?? (e.DATABASE_URL ? heavyConnectionsFor(cores, e.HEAVY_PER_CLIENT) : 4);
  const baseUrl = withoutTrailingSlash(
    e.BASE_URL ?? `${tls ? 'https' : 'http'}://${e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST}:${e.PORT}`,
  );
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    replicaUrls: e.DATABASE_REPLICA_URLS ?? [],
    replicaMaxLagMs: e.REPLICA_MAX_LAG_MS,
    migrationDatabaseUrl: e.MIGRATION_DATABASE_URL ?? e.DATABASE_URL,
    poolMode: e.DATABASE_POOL_MODE,
    migrationPoolMode: e.MIGRATION_DATABASE_URL && e.DATABASE_POOL_MODE !== 'auto' ? 'session' : e.DATABASE_POOL_MODE,
    dataDir: e.DATA_DIR,
    baseUrl,
    problemsUrl: withoutTrailingSlash(e.PROBLEMS_URL ?? `${baseUrl}/problems`),
    requestDeadlineMs: e.REQUEST_DEADLINE_MS,
    tokenTtlSeconds: e.TOKEN_TTL_S,
    // A production database is never seeded by accident; the embedded one starts with something to read.
    demo: e.DEMO === 'off' || (e.DEMO === undefined && e.DATABASE_URL) ? 'off' : 'auto',
    heavyPerClient: e.HEAVY_PER_CLIENT,
    heavyConnections,
    heavyPerOrganization: Math.min(heavyConnections, e.HEAVY_PER_ORGANIZATION ?? Math.ceil(heavyConnections / 2)),
    downloadStallMs: e.DOWNLOAD_STALL_S * 1000,
    connections: {
      headersTimeoutMs: e.HEADERS_TIMEOUT_S * 1000,
      keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_S * 1000,
      ...(e.MAX_CONNECTIONS ? { maxConnections: e.MAX_CONNECTIONS } : {}),
    },
    metricsPort: e.METRICS_PORT,
    tls,
  };
}

/** Variables of ours that are not settings: set between our own processes, or by the test runner. */
const INTERNAL = ['READOUT_PREPARE_DATA_DIR', 'READOUT_TEST_TEMPLATES', 'READOUT_TEST_RUN'];

const FOREIGN = /^(PG[A-Z]|SSL_|NODE_|npm_|NPM_|BUN_|DENO_|TSX_)/;

/**
 * The environment's variables that look like a misspelt setting of ours (docs/decisions.md §10): any READOUT_ name
 * not ours, and a name a few edits from one of ours (DATABASE_ULR, DATA_DIRR), each with the nearest known name. A
 * typo otherwise falls back to a default in silence: DATABASE_ULR would open ./data. The prefixes of FOREIGN are
 * other programs' (libpq's PG*, OpenSSL's SSL_CERT_FILE, the runtimes' and npm's), never ours.
 */
export function strayVariables(env: Record<string, string | undefined>): string[] {
  const known = Object.keys(EnvSchema.entries);
  return Object.keys(env)
    .filter((name) => !known.includes(name) && !INTERNAL.includes(name) && !FOREIGN.test(name))
    .flatMap((name) => {
      const bare = name.replace(/^READOUT_/, '');
      const near = known.includes(bare) ? [bare] : nearest(name, known, 1);
      if (!near.length && !name.startsWith('READOUT_')) return [];
      const meant = near.length ? `; did you mean ${near[0]}?` : '; readout reads no such variable';
      return [`unknown environment variable ${name}${meant} (docs/operations.md, "Configuration")`];
    });
}

/** A PostgreSQL URL as it may be shown: without its password. */
export function withoutPassword(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = '';
    return url.href;
  } catch {
    return databaseUrl.replace(/:[^:@/]*@/, '@');
  }
}

/** The database a command or server uses, for its first line: a URL without its password, or the embedded folder. */
export function databaseLine(config: Pick<Config, 'databaseUrl' | 'dataDir'>): string {
  if (config.databaseUrl) return `database: ${withoutPassword(config.databaseUrl)}`;
  const full = resolve(config.dataDir);
  return `database: embedded in ${config.dataDir}${full === config.dataDir ? '' : ` (${full})`}`;
}
