// The HS256 keys that sign access tokens: kept in PostgreSQL so every process shares them, cached here.
import type { Sql } from '../store/database.ts';
import { query } from '../store/queries.ts';
import { newKeyId, newSigningSecret } from './secrets.ts';

type Key = { kid: string; secret: Uint8Array; retiredAt?: number | null };

/** An unknown key id reads the table again only when the last read began this long ago: anyone can send one. */
const RELOAD_INTERVAL_MS = 100;
/**
 * The keys are read again in the background once the last read is this old, so a process signs with a rotated key
 * within about this long of `keys rotate` (cli/keys.ts retires the old one well after that).
 */
export const KEY_REFRESH_MS = 10_000;

export type SigningKeys = {
  /** The newest key; creates the first one on a fresh database. */
  current(): Promise<Key>;
  /**
   * A key by id. An unknown id waits for a read under way, or reads the table again (at most every
   * RELOAD_INTERVAL_MS, one read shared by every request), before giving up.
   */
  find(kid: string): Promise<Key | undefined>;
  /** Reads the keys (making the first on a fresh database); at start, before the process answers. */
  load(): Promise<void>;
};

export function signingKeys(sql: Sql, clock: () => number): SigningKeys {
  let keys: Key[] = [];
  let loadedAt = -Infinity;
  let loading: Promise<void> | undefined;

  const load = () =>
    (loading ??= (async () => {
      loadedAt = clock();
      try {
        let rows = await query(sql, 'list-signing-keys');
        if (rows.length === 0) {
          await query(sql, 'create-signing-key', { kid: newKeyId(), secret: newSigningSecret() });
          rows = await query(sql, 'list-signing-keys');
        }
        keys = rows.map((row) => ({ kid: row.kid, secret: new Uint8Array(row.secret), retiredAt: row.retired_at_ms }));
      } finally {
        loading = undefined;
      }
    })());

  return {
    async current() {
      if (keys.length === 0) await load();
      // A read that fails keeps the keys known: the next token is signed as the last one was.
      else if (clock() - loadedAt >= KEY_REFRESH_MS) load().catch(() => {});
      return keys[0];
    },
    load,
    async find(kid) {
      const usable = () => keys.find((k) => k.kid === kid && (k.retiredAt == null || k.retiredAt > clock()));
      const known = usable();
      if (known) return known;
      if (loading) await loading.catch(() => {});
      else if (clock() - loadedAt >= RELOAD_INTERVAL_MS) await load();
      return usable();
    },
  };
}
