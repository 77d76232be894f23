// Operator command line entry: `npm run readout -- COMMAND`, `bun src/cli.ts`, `deno run -A src/cli.ts`.
import { createReadStream, writeSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import process from 'node:process';
import { readBounded, UsageError } from './cli/args.ts';
import { parseCommandLine, runCommand } from './cli/run.ts';
import { ConfigError, databaseLine, loadConfig, strayVariables } from './config.ts';
import { holdsNoDatabase } from './store/embedded.ts';
import { openDatabase } from './store/open.ts';
import { databaseProblem, startupLine } from './serve/startup.ts';
import { migrate } from './store/migrate.ts';

const argv = process.argv.slice(2);

// A reader that closes early (`| head`) ends the command quietly with the status SIGPIPE would give it; with nobody
// left to read standard error, nothing more can be said there.
process.stdout.on('error', (error: NodeJS.ErrnoException) => process.exit(error.code === 'EPIPE' ? 141 : 1));
process.stderr.on('error', () => {});

/**
 * Writes the text and resolves once the stream has handed every byte to the OS: process.exit drops what a pipe's
 * slow reader has not taken yet. The write's callback is enough on Node and Deno; Bun calls it early, so the stream's
 * drain is awaited too.
 */
function written(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => {
    stream.write(text, () => {
      if (!stream.writableNeedDrain) resolve();
      else stream.once('drain', resolve);
    });
  });
}

/** Exits once standard output and standard error are whole at their readers. */
async function exit(code: number, stdout = '', stderr = ''): Promise<never> {
  await Promise.all([written(process.stdout, stdout), written(process.stderr, stderr)]);
  process.exit(code);
}

const fail = (code: number, message: string) => exit(code, '', `readout: ${message}\n`);

/** The commands that may create an embedded database; `db copy` writes another installation, never its source. */
const CREATES = ['demo', 'org create'];

const LOST = 'the connection to the database closed while the command ran; what it had not committed was rolled back';

// Whatever escapes the command is one line, never a stack. postgres.js 3.4.9 throws from a timer when the server goes
// away mid-write (porsager/postgres#1208): the transaction it was in never committed.
const escaped = (error: unknown) => {
  const lost = error instanceof TypeError && /reading 'write'|evaluating 'socket.write'/.test(error.message);
  void fail(1, `failed: ${lost ? LOST : error instanceof Error ? error.message : String(error)}`);
};
process.on('uncaughtException', escaped);
process.on('unhandledRejection', escaped);
// The same bug can leave a query unsettled with nothing left to run: Node then ends the command with exit 13 and no
// word. It is said here, as the line above says it.
process.on('exit', (code) => {
  if (code !== 13 && process.exitCode !== 13) return;
  writeSync(2, `readout: failed: ${LOST}\n`);
  process.exitCode = 1;
});

let command = '';
try {
  // Bad arguments are refused, and help answered, before the database is touched.
  const line = parseCommandLine(argv);
  if (line.help !== undefined) await exit(0, `${line.help}\n`);
  command = line.name!;
} catch (error) {
  if (error instanceof UsageError) await fail(2, error.message);
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
  if (error instanceof ConfigError) await fail(2, error.message);
  throw error;
}

// Which database, before anything else: an operator who meant another one stops here (docs/decisions.md §10).
process.stderr.write(`readout: ${databaseLine(config!)}\n`);
for (const stray of strayVariables(process.env)) process.stderr.write(`readout: warning: ${stray}\n`);
// Only these create an embedded database; any other command on an empty folder was pointed at the wrong one.
if (!config!.databaseUrl && !CREATES.includes(command) && holdsNoDatabase(config!.dataDir))
  await fail(
    2,
    `DATA_DIR ${config!.dataDir} holds no database; create one with \`readout demo\` or \`readout org create --name ` +
      "NAME` (or a server's first start), or set DATA_DIR or DATABASE_URL to the installation you meant",
  );

const database = await openDatabase({
  databaseUrl: config!.databaseUrl,
  dataDir: config!.dataDir,
  poolMode: config!.poolMode,
  holder: 'command',
  waiting: (line) => process.stderr.write(`readout: ${line}\n`),
}).catch((error) => {
  const line = startupLine(error) ?? (config!.databaseUrl ? databaseProblem(error, config!.databaseUrl) : undefined);
  if (line) return fail(2, line);
  throw error;
});
let code = 1;
let stdout = '';
let stderr = '';
// The server whose embedded database this command uses may be killed under it: looked for each second, and then the
// command ends with one line rather than wait for a query that never settles.
const watch =
  database.served &&
  setInterval(async () => {
    if (!(await database.served!())) await fail(1, `failed: ${LOST}`);
  }, 1000);
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
    tokenTtlSeconds: config!.tokenTtlSeconds,
    installation: { databaseUrl: config!.databaseUrl, dataDir: config!.dataDir },
  });
  ({ code, stdout, stderr } = outcome);
} catch (error) {
  const problem = config!.databaseUrl ? databaseProblem(error, config!.databaseUrl) : undefined;
  if (problem) code = 2;
  stderr = `readout: ${problem ?? `failed: ${error instanceof Error ? error.message : String(error)}`}\n`;
}
// The database first: a command piped into this one waits for this one's embedded database, while this one would wait
// for it to read the output. A database gone mid-command (the embedded server killed) cannot be closed politely.
if (watch) clearInterval(watch);
await database.close().catch(() => {});
await exit(code, stdout, stderr);
