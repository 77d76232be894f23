// What kind of failure a store error is: the database unreachable or unwilling now (worth a retry), or something else.

/**
 * postgres.js's own connection errors, and PostgreSQL's SQLSTATE classes 08 (connection), 53 (insufficient
 * resources) and 57 (operator intervention), and the operating system's (ECONNREFUSED and the like).
 */
export function isUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    error instanceof Error &&
    typeof code === 'string' &&
    (/^CONNECT|^CONNECTION_/.test(code) || /^(08|57|53)/.test(code) || /^E[A-Z]+$/.test(code))
  );
}

/** WASI's numbers for the errors of a data folder that cannot be written, as PGlite's file system throws them. */
const WASI_ERRNO: Record<number, string> = {
  2: 'EACCES',
  19: 'EDQUOT',
  29: 'EIO',
  51: 'ENOSPC',
  63: 'EPERM',
  69: 'EROFS',
};

const STORAGE: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EIO: 'an input/output error',
  // PostgreSQL's SQLSTATEs for the same (disk_full, io_error).
  '53100': 'no space left on the device',
  '58030': 'an input/output error',
};

/**
 * Why the database's files cannot be written, in words, when that is what error says (the operating system's code,
 * PostgreSQL's SQLSTATE, or PGlite's WASI errno); undefined otherwise.
 */
export function storageProblem(error: unknown): string | undefined {
  const e = error as { code?: unknown; errno?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : typeof e?.errno === 'number' ? WASI_ERRNO[e.errno] : undefined;
  const why = code && STORAGE[code];
  if (!why) return undefined;
  const detail = typeof e?.message === 'string' && e.message ? `: ${e.message.split('\n')[0]}` : '';
  return `${why} (${code}${detail})`;
}

/** An error as one line: its message, or what it is when it has none (PGlite throws objects without one). */
export function errorLine(error: unknown): string {
  if (error instanceof Error && error.message) return error.message.split('\n')[0];
  const e = error as { name?: unknown; errno?: unknown; code?: unknown } | null;
  if (e && typeof e === 'object') return [e.name, e.code ?? e.errno].filter((part) => part !== undefined).join(' ');
  return String(error);
}
