// Which clients are revoked, as every process must know within one second (docs/decisions.md §9).
import type { Sql } from '../store/database.ts';
import { query } from '../store/queries.ts';
import { withTimeout } from '../store/timeout.ts';

/** A list this young is used as is; older, it is refreshed behind the request; past MAX_AGE the request waits. */
const REFRESH_AFTER_MS = 250;
const MAX_AGE_MS = 1000;
const READ_TIMEOUT_MS = 1000;

export type Revocations = {
  /** True when revoked; undefined when the store cannot tell. At once while the list is fresh enough. */
  isRevoked(clientId: string): boolean | undefined | Promise<boolean | undefined>;
  /** Reads the list; at start, before the process answers. */
  load(): Promise<boolean>;
};

export function revocations(sql: Sql, clock: () => number): Revocations {
  let revoked = new Set<string>();
  let readAt = -Infinity;
  let refreshing: Promise<boolean> | undefined;

  const refresh = () =>
    (refreshing ??= (async () => {
      const started = clock();
      try {
        const [row] = await withTimeout(query(sql, 'list-revoked-clients'), READ_TIMEOUT_MS);
        revoked = new Set(row.ids);
        // Age is counted from when the read began: a revocation committed after that may be missing.
        readAt = started;
        return true;
      } catch {
        return false;
      } finally {
        refreshing = undefined;
      }
    })());

  return {
    load: refresh,
    isRevoked(clientId) {
      const age = clock() - readAt;
      if (age >= MAX_AGE_MS) return refresh().then((read) => (read ? revoked.has(clientId) : undefined));
      if (age >= REFRESH_AFTER_MS) void refresh();
      return revoked.has(clientId);
    },
  };
}
