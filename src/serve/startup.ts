// What stops a start, said in one line for the operator (exit 2), rather than a stack trace: the configuration, the
// database that cannot be reached, the data folder, the port, the TLS files.
import { createServer } from 'node:net';
import { ConfigError } from '../config.ts';
import { databaseDescription } from '../store/database.ts';
import { DataDirError } from '../store/embedded.ts';
import { storageProblem } from '../store/errors.ts';

/** A problem the operator can fix, already worded. */
export class StartupError extends Error {}

const REACH = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'CONNECT_TIMEOUT',
  'ECONNRESET',
]);

/**
 * postgres.js's error at the first statement, as why the database at the URL cannot be used; undefined if it is not
 * one.
 */
export function databaseProblem(error: unknown, databaseUrl: string): string | undefined {
  const where = databaseDescription(databaseUrl);
  const e = error as { code?: string; errno?: string; message?: string };
  const code = e.code ?? e.errno;
  if (code && REACH.has(code)) return `cannot reach the database at ${where} (${code})`;
  if (code === '28P01' || code === '28000') return `the database at ${where} refused the login (${e.message})`;
  if (code === '3D000') return `the database at ${where} does not exist (${e.message})`;
  if (code === '42501') return `the database at ${where} refused a needed permission (${e.message})`;
  // PgBouncer refuses the settings sent at startup; in transaction pooling mode (or auto, which finds it) none are
  // sent.
  if (/unsupported startup parameter/.test(e.message ?? '')) {
    return (
      `the database at ${where} refused a setting sent at startup (${e.message}): behind PgBouncer, set ` +
      `DATABASE_POOL_MODE=transaction, or leave it unset`
    );
  }
  return undefined;
}

/** Why listening failed, for the port named. */
export function listenProblem(error: unknown, host: string, port: number, variable = 'PORT'): string | undefined {
  const code = (error as { code?: string }).code;
  const at = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (code === 'EADDRINUSE') return `cannot listen on ${at}: the port is in use (set ${variable})`;
  if (code === 'EACCES')
    return `cannot listen on ${at}: permission denied (ports below 1024 need privileges; set ${variable})`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return `cannot listen on ${at}: HOST is not an address of this machine`;
  return undefined;
}

/**
 * Binds the address and lets it go at once, so a port in use is said before the start writes anything (a DATA_DIR,
 * migrations). PORT=0 is always free.
 */
export function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host, port }, () => probe.close(() => resolve()));
  });
}

/** The one line for an error that stops a start, or undefined for a bug (which keeps its stack). */
export function startupLine(error: unknown): string | undefined {
  if (error instanceof ConfigError || error instanceof DataDirError || error instanceof StartupError)
    return error.message;
  // A full disk or a folder it may not write, met while preparing the database (migrations, the demo).
  const storage = storageProblem(error);
  return storage ? `cannot write the database: ${storage}` : undefined;
}
