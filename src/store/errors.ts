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
