// Entry point: configuration, database, migrations, the app, and the runtime's server; graceful on SIGTERM/SIGINT.
// First, before anything else can leave Node's tick class to be collected (serve/tickShape.ts).
import './serve/tickShape.ts';
import process from 'node:process';
import { createApp, type App } from './app.ts';
import { loadConfig, strayVariables } from './config.ts';
import { SHARED_STATEMENT_TIMEOUT_MS } from './store/database.ts';
import { openDatabase } from './store/open.ts';
import { checkPortFree, databaseProblem, listenProblem, startupLine } from './serve/startup.ts';
import { readTls } from './serve/tls.ts';
import { createCounters, servePrometheus } from './serve/prometheus.ts';
import { flushLines, writeLine } from './http/logLines.ts';
import { migrate } from './store/migrate.ts';
import type { IncomingRequest, Serve } from './serve/types.ts';
import { seedDemo, type DemoCredentials } from './cli/demo.ts';
import { bundled } from './bundled.ts';
import type { Sql } from './store/database.ts';
import { PREPARE_DATA_DIR, prepareApart } from './serve/initDataDir.ts';
import { isFresh } from './store/embedded.ts';

type Demo = DemoCredentials;

/** A first start on an empty database seeds the demo, so there is something to read at once. */
async function seedDemoWhenEmpty(sql: Sql): Promise<Demo | undefined> {
  const [{ empty }] = await sql`select not exists (select 1 from organizations) as empty`;
  if (!empty) return undefined;
  return seedDemo(sql, Date.now());
}

/** For the person at the terminal, on stderr: stdout carries only JSON log lines. */
function printDemo(demo: Demo, baseUrl: string) {
  process.stderr.write(
    [
      '',
      'readout: the database was empty, so a demo organization was created.',
      `  organization  ${demo.organizationId}`,
      `  client id     ${demo.clientId}`,
      `  client secret ${demo.clientSecret}   (shown this once; \`${bundled.command ?? 'npm run readout --'} demo\` ` +
        `issues another)`,
      '',
      'Get a token and read who you are:',
      `  TOKEN=$(curl -s ${baseUrl}/api/connect/token -d grant_type=client_credentials -d client_id=${demo.clientId} ` +
        `-d client_secret=${demo.clientSecret} | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')`,
      `  curl -s ${baseUrl}/v1/me -H "Authorization: Bearer $TOKEN"`,
      `  curl -s ` +
        `"${baseUrl}/v1/reports/${demo.reportIds[0]}/data?groupBy=campaign&dateFrom=2026-01-01&dateTo=2026-01-31" -H ` +
        `"Authorization: Bearer $TOKEN"`,
      '',
    ].join('\n'),
  );
}

function runtimeAdapter(): Promise<{ serve: Serve }> {
  if ('Bun' in globalThis) return import('./serve/bun.ts');
  if ('Deno' in globalThis) return import('./serve/deno.ts');
  return import('./serve/node.ts');
}

const note = (msg: string, fields: Record<string, unknown> = {}) =>
  writeLine(JSON.stringify({ time: new Date().toISOString(), msg, ...fields }));

const fatal = (message: string): never => {
  process.stderr.write(`readout: ${message}\n`);
  process.exit(2);
};

/** Runs one step of the start; what the operator can fix ends the process with one line and exit 2. */
async function step<T>(
  run: () => Promise<T> | T,
  problem: (error: unknown) => string | undefined = () => undefined,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const line = startupLine(error) ?? problem(error);
    if (line !== undefined) fatal(line);
    throw error;
  }
}

let config = await step(() => loadConfig(process.env));
if (process.env[PREPARE_DATA_DIR] === undefined)
  for (const stray of strayVariables(process.env)) process.stderr.write(`readout: warning: ${stray}\n`);
const tls = config.tls ? await step(() => readTls(config.tls!)) : undefined;
// The port is tried before the data folder and the migrations: a second server on a busy port writes nothing.
if (process.env[PREPARE_DATA_DIR] === undefined)
  await step(
    () => checkPortFree(config.host, config.port),
    (error) => listenProblem(error, config.host, config.port),
  );

/**
 * Migrations and the demo may run long: on PostgreSQL they get a connection of their own, without the pool's timeout.
 */
async function prepareStore(sql: Sql) {
  const applied = await migrate(sql);
  if (applied.length) note('migrations applied', { applied });
  return config.demo === 'auto' ? seedDemoWhenEmpty(sql) : undefined;
}
let demo: Demo | undefined;
// A process started to prepare the embedded database's folder does that, prints the demo it made, and exits.
const preparing = process.env[PREPARE_DATA_DIR];
if (preparing !== undefined) {
  const db = await step(() => openDatabase({ dataDir: preparing, max: 1 }));
  try {
    const made = await step(() => prepareStore(db.sql));
    // The log lines first (they may still be queued), so the demo is the last line, as the parent reads it.
    flushLines();
    process.stdout.write(`${JSON.stringify({ demo: made ?? null })}\n`);
  } finally {
    await db.close();
  }
  process.exit(0);
}
// A fresh embedded folder is prepared in a process apart, so this one idles as it would after a restart.
let prepared = false;
if (!config.databaseUrl && config.dataDir && isFresh(config.dataDir)) {
  const printed = await step(
    () =>
      prepareApart(config.dataDir!).catch((error: { exitCode?: number }) => {
        // What stopped it (an unusable DATA_DIR, a holder that does not answer) is already one line on stderr.
        if (error.exitCode === 2) process.exit(2);
        throw error;
      }),
    (error) => (error instanceof Error ? error.message : undefined),
  );
  if (printed !== undefined) {
    // Its log lines (the migrations applied) are this server's; the last line is the demo it made.
    const lines = printed.trim().split('\n');
    for (const line of lines.slice(0, -1)) writeLine(line);
    demo = JSON.parse(lines.at(-1)!).demo ?? undefined;
    prepared = true;
  }
}
if (config.databaseUrl) {
  const reach = (error: unknown) => databaseProblem(error, config.migrationDatabaseUrl!);
  const setup = await step(
    () => openDatabase({ databaseUrl: config.migrationDatabaseUrl, max: 1, poolMode: config.migrationPoolMode }),
    reach,
  );
  try {
    demo = await step(() => prepareStore(setup.sql), reach);
  } finally {
    await setup.close();
  }
}
const database = await step(
  () =>
    openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      asyncCommit: true,
      statementTimeoutMs: SHARED_STATEMENT_TIMEOUT_MS,
      poolMode: config.poolMode,
    }),
  (error) => (config.databaseUrl ? databaseProblem(error, config.databaseUrl) : undefined),
);
// DATABASE_POOL_MODE=auto is decided by the server's answer at startup: the app and the standbys follow it.
config = { ...config, poolMode: database.poolMode };
if (!config.databaseUrl && !prepared) demo = await step(() => prepareStore(database.sql));
// Migrations may have run elsewhere (MIGRATION_DATABASE_URL): DATABASE_URL is tried before the port opens, so a
// pooler that refuses its settings is one line at start rather than a 503 on every request.
else if (config.migrationDatabaseUrl !== config.databaseUrl)
  await step(
    () => database.sql`select 1`,
    (error) => databaseProblem(error, config.databaseUrl!),
  );
const { serve } = await runtimeAdapter();
// The app is built once the port is bound, so PORT=0 still gives a true default BASE_URL.
let app: App | undefined;
let appReady: (app: App) => void = () => {};
const built = new Promise<App>((resolve) => (appReady = resolve));
const server = await step(
  () =>
    serve(
      Object.assign((request: IncomingRequest) => (app ? app(request) : built.then((ready) => ready(request))), {
        answer: (request: IncomingRequest) =>
          app ? app.answer(request) : built.then((ready) => ready.answer(request)),
      }),
      {
        port: config.port,
        host: config.host,
        direct: (method, url, header) => app?.direct(method, url, header),
        refuse: (why, method, path) => app?.refuse(why, method, path),
        tls,
        connections: config.connections,
      },
    ),
  (error) => listenProblem(error, config.host, config.port),
).catch(async (error) => {
  await database.close();
  throw error;
});
if (config.port === 0 && !process.env.BASE_URL)
  config = { ...loadConfig({ ...process.env, PORT: new URL(server.url).port }), poolMode: database.poolMode };
const counts = config.metricsPort === undefined ? undefined : createCounters();
const metricsServer =
  counts &&
  (await step(
    () => servePrometheus(counts.registry, config.metricsPort!, config.host),
    (error) => listenProblem(error, config.host, config.metricsPort!, 'METRICS_PORT'),
  ));
const created = createApp({ sql: database.sql, config, counters: counts });
// Requests that arrive meanwhile, health's included, wait for it: a sibling's token is never refused for want of a key.
await created.warm();
app = created;
appReady(app);
note('listening', {
  url: server.url,
  baseUrl: config.baseUrl,
  database: database.description,
  ...(database.poolMode === 'transaction' ? { pooling: 'transaction' } : {}),
  ...(metricsServer ? { metrics: metricsServer.url } : {}),
});
if (demo) printDemo(demo, config.baseUrl);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  note('shutting down', { signal });
  await server.close();
  await metricsServer?.close();
  await app?.close();
  await database.close();
  process.exit(0);
}
// Lines still queued when the process ends some other way are written on the way out.
process.on('exit', flushLines);
// A last resort, never the way an error is meant to be handled: one request's fault must not end the process that
// serves every other (each path has its own handling and tests; this line in the log is a bug to fix).
process.on('uncaughtException', (error) => note('uncaught', { error: error.stack ?? String(error) }));
process.on('unhandledRejection', (error) =>
  note('uncaught', { error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
);
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
// npx runs the server under `sh -c`, which dies of the SIGTERM npm passes on and leaves the server behind: under npm,
// the parent going away stops the server as that signal would have.
if (process.env.npm_command) {
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && void shutdown('SIGTERM (npm exited)'), 250).unref();
}
