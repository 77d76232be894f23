// Report definitions and lists kept in memory, each with the organization's report version it was read at
// (migration 010). A request's charge reads the current version in the same statement as the charge, so a kept
// answer is used only when it is at least that new: never older than the charge, whoever changed the reports.
import type { Principal } from '../auth/accessTokens.ts';

/** The kept answers' keys (in UTF-16 code units) and bodies (in bytes): a few MB, whatever the clients and pages. */
const MAX_SIZE = 4 * 1024 * 1024;

export type ReportCache = {
  /** The body kept under key, if it was read at version atLeast or later. */
  get(key: string, atLeast: number): Uint8Array<ArrayBuffer> | undefined;
  /**
   * Keeps body as read at version, as its UTF-8 bytes: a kept answer is written as it is, not encoded again for every
   * request. An entry read at a later version stays. Returns the bytes.
   */
  set(key: string, version: number, body: string): Uint8Array<ArrayBuffer>;
};

const encoder = new TextEncoder();

export function reportCache(maxSize = MAX_SIZE): ReportCache {
  // A Map iterates in insertion order: the first entries are the oldest, and go first.
  const entries = new Map<string, { version: number; body: Uint8Array<ArrayBuffer> }>();
  let size = 0;
  return {
    get(key, atLeast) {
      const entry = entries.get(key);
      return entry !== undefined && entry.version >= atLeast ? entry.body : undefined;
    },
    set(key, version, text) {
      const body = encoder.encode(text);
      const old = entries.get(key);
      if (old !== undefined) {
        if (old.version > version) return body;
        entries.delete(key);
        size -= key.length + old.body.length;
      }
      const added = key.length + body.length;
      if (added > maxSize) return body;
      for (const [oldKey, entry] of entries) {
        if (size + added <= maxSize) break;
        entries.delete(oldKey);
        size -= oldKey.length + entry.body.length;
      }
      entries.set(key, { version, body });
      size += added;
      return body;
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
