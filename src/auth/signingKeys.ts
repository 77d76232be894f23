// The HS256 keys that sign access tokens: kept in PostgreSQL so every process shares them, cached here.
import type { Sql } from '../store/database.ts';
import { query } from '../store/queries.ts';
import { newKeyId, newSigningSecret } from './secrets.ts';

type Key = { kid: string; secret: Uint8Array };

const RELOAD_INTERVAL_MS = 1000;

export type SigningKeys = {
  /** The newest key; creates the first one on a fresh database. */
  current(): Promise<Key>;
  /** A key by id; an unknown id reloads the table (at most once a second) before giving up. */
  find(kid: string): Promise<Key | undefined>;
};

export function signingKeys(sql: Sql, clock: () => number): SigningKeys {
  let keys: Key[] = [];
  let loadedAt = -Infinity;
  let loading: Promise<void> | undefined;

  const load = () =>
    (loading ??= (async () => {
      try {
        let rows = await query<{ kid: string; secret: Uint8Array }>(sql, 'list-signing-keys');
        if (rows.length === 0) {
          await query(sql, 'create-signing-key', [newKeyId(), newSigningSecret() as unknown as string]);
          rows = await query(sql, 'list-signing-keys');
        }
        keys = rows.map((row) => ({ kid: row.kid, secret: new Uint8Array(row.secret) }));
        loadedAt = clock();
      } finally {
        loading = undefined;
      }
    })());

  return {
    async current() {
      if (keys.length === 0) await load();
      return keys[0];
    },
    async find(kid) {
      let key = keys.find((k) => k.kid === kid);
      if (!key && clock() - loadedAt >= RELOAD_INTERVAL_MS) {
        await load();
        key = keys.find((k) => k.kid === kid);
      }
      return key;
    },
  };
}
