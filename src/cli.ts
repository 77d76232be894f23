// Operator command line entry: `npm run readout -- COMMAND`, `bun src/cli.ts`, `deno run -A src/cli.ts`.
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import process from 'node:process';
import { readBounded, UsageError } from './cli/args.ts';
import { parseCommandLine, runCommand } from './cli/run.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './store/open.ts';
import { databaseProblem, startupLine } from './serve/startup.ts';
import { migrate } from './store/migrate.ts';

const argv = process.argv.slice(2);
const fail = (code: number, message: string) => {
  process.stderr.write(`readout: ${message}\n`);
  process.exit(code);
};

try {
  // Bad arguments are refused, and help answered, before the database is touched.
  const line = parseCommandLine(argv);
  if (line.help !== undefined) {
    process.stdout.write(`${line.help}\n`);
    process.exit(0);
  }
} catch (error) {
  if (error instanceof UsageError) fail(2, error.message);
  throw error;
}

/**
 * A file named on the command line, as it is read (memory does not grow with the file): `-` is standard input, and
 * gzip (a `.gz` name, or gzip's first bytes) is unpacked.
 */
async function* readStream(path: string): AsyncGenerator<Uint8Array> {
  const source: AsyncIterable<Uint8Array> =
    path === '-' ? process.stdin : createReadStream(path, { highWaterMark: 1 << 16 });
  const chunks = source[Symbol.asyncIterator]();
  const first = await chunks.next();
  if (first.done) return;
  const all = (async function* () {
    yield first.value;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  })();
  const gzip = path.endsWith('.gz') || (first.value[0] === 0x1f && first.value[1] === 0x8b);
  yield* gzip ? Readable.from(all).pipe(createGunzip()) : all;
}

/** The same, whole and up to a limit, for the files read whole (exchange rates, a catalogue). */
const readText = (path: string, maxBytes: number) => readBounded(readStream(path), maxBytes);

let config: ReturnType<typeof loadConfig> | undefined;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (error instanceof ConfigError) fail(2, error.message);
  throw error;
}

const database = await openDatabase({
  databaseUrl: config!.databaseUrl,
  dataDir: config!.dataDir,
  poolMode: config!.poolMode,
}).catch((error) => {
  const line = startupLine(error) ?? (config!.databaseUrl ? databaseProblem(error, config!.databaseUrl) : undefined);
  if (line) fail(2, line);
  throw error;
});
let code = 1;
try {
  // Migrations take their lock on MIGRATION_DATABASE_URL, a direct connection, when it is not DATABASE_URL.
  const direct =
    config!.migrationDatabaseUrl !== config!.databaseUrl
      ? await openDatabase({ databaseUrl: config!.migrationDatabaseUrl, max: 1, poolMode: config!.migrationPoolMode })
      : undefined;
  try {
    await migrate((direct ?? database).sql);
  } finally {
    await direct?.close();
  }
  const outcome = await runCommand(argv, {
    sql: database.sql,
    now: Date.now(),
    progress: (line) => process.stderr.write(`${line}\n`),
    readText,
    readStream,
    copy: Boolean(config!.databaseUrl),
  });
  process.stdout.write(outcome.stdout);
  process.stderr.write(outcome.stderr);
  code = outcome.code;
} catch (error) {
  const problem = config!.databaseUrl ? databaseProblem(error, config!.databaseUrl) : undefined;
  if (problem) code = 2;
  process.stderr.write(`readout: ${problem ?? `failed: ${error instanceof Error ? error.message : String(error)}`}\n`);
} finally {
  await database.close();
}
process.exit(code);
