// `keys rotate` and `keys list` (docs/decisions.md §9, §10): the HS256 keys that sign access tokens. A rotation makes
// a new key the one that signs; the old one verifies until every token it may have signed has expired, so no client
// sees a token refused, on any process: each reads the keys again within KEY_REFRESH_MS (auth/signingKeys.ts).
import type { Sql } from '../store/database.ts';
import { query } from '../store/queries.ts';
import { newKeyId, newSigningSecret } from '../auth/secrets.ts';
import { KEY_REFRESH_MS } from '../auth/signingKeys.ts';
import { result, table } from './output.ts';

/** Past the token lifetime: a process signs with the old key until it next reads the keys, and clocks differ. */
const RETIRE_MARGIN_S = Math.ceil(KEY_REFRESH_MS / 1000) + 50;

export async function keysRotate(sql: Sql, tokenTtlSeconds: number) {
  const retiresIn = tokenTtlSeconds + RETIRE_MARGIN_S;
  const [made] = await sql.begin(async (tx) => {
    await query(tx, 'lock-signing-keys');
    return query(tx, 'rotate-signing-key', { kid: newKeyId(), secret: newSigningSecret(), retiresInS: retiresIn });
  });
  const text =
    `key ${made.kid} signs from now on; ` +
    (made.retired
      ? `the key it replaces verifies the tokens it signed for ${retiresIn} s more (TOKEN_TTL_S ${tokenTtlSeconds} ` +
        `and ${RETIRE_MARGIN_S} s), then is retired`
      : 'there was none before it');
  return result({ kid: made.kid, current: true }, text);
}

export async function keysList(sql: Sql) {
  const keys = await query(sql, 'list-all-signing-keys');
  return result({ keys }, table(keys, ['kid', 'createdAt', 'current', 'retiredAt']) || 'no signing keys yet');
}
