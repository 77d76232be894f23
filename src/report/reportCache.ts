// Report definitions and lists kept in memory, each with the organization's report version it was read at
// (migration 010). A request's charge reads the current version in the same statement as the charge, so a kept
// answer is used only when it is at least that new: never older than the charge, whoever changed the reports.
import type { Principal } from '../auth/accessTokens.ts';

/** The kept answers' keys and bodies, in UTF-16 code units: a few MB, whatever the number of clients and pages. */
const MAX_CHARS = 4 * 1024 * 1024;

export type ReportCache = {
  /** The body kept under key, if it was read at version atLeast or later. */
  get(key: string, atLeast: number): string | undefined;
  /** Keeps body as read at version; an entry read at a later version stays. */
  set(key: string, version: number, body: string): void;
};

export function reportCache(maxChars = MAX_CHARS): ReportCache {
  // A Map iterates in insertion order: the first entries are the oldest, and go first.
  const entries = new Map<string, { version: number; body: string }>();
  let chars = 0;
  return {
    get(key, atLeast) {
      const entry = entries.get(key);
      return entry !== undefined && entry.version >= atLeast ? entry.body : undefined;
    },
    set(key, version, body) {
      const old = entries.get(key);
      if (old !== undefined) {
        if (old.version > version) return;
        entries.delete(key);
        chars -= key.length + old.body.length;
      }
      const size = key.length + body.length;
      if (size > maxChars) return;
      for (const [oldKey, entry] of entries) {
        if (chars + size <= maxChars) break;
        entries.delete(oldKey);
        chars -= oldKey.length + entry.body.length;
      }
      entries.set(key, { version, body });
      chars += size;
    },
  };
}

const principalKeys = new WeakMap<Principal, string>();

/**
 * What a client's answers about reports depend on besides the request: its organization and allow-lists. A verified
 * token's principal is kept and reused (accessTokens.ts), so its key is worked out once.
 */
export function principalKey(principal: Principal): string {
  let key = principalKeys.get(principal);
  if (key === undefined) {
    const list = (allowed: Principal['reports']) => (allowed === 'all' ? 'all' : [...allowed].sort().join(','));
    key = `${principal.organizationId} ${list(principal.reports)} ${list(principal.adAccounts)}`;
    principalKeys.set(principal, key);
  }
  return key;
}
