// `keys rotate` and `keys list` (docs/decisions.md §9, §10): a new key signs; a token the old one signed keeps working
// on every process, one that has read the new key and one that has not, until the old key is retired.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeProtectedHeader } from 'jose';
import { createApp } from '../src/app.ts';
import { runCommand } from '../src/cli/run.ts';
import { KEY_REFRESH_MS } from '../src/auth/signingKeys.ts';
import { testApp, BASE } from './support/app.ts';
import { bearer, tenant, tokenRequest } from './support/fixtures.ts';

const it = suite('keyRotation');

const kidOf = (token: string) => decodeProtectedHeader(token).kid as string;

it('a rotated key signs on every process within the refresh; old tokens verify everywhere until it is retired', async () => {
  const t = await testApp();
  // A second process on the same database, with its own cache of keys and its own clock.
  const other = createApp({ sql: t.db.sql, config: t.config, clock: () => t.clock.now, log: () => {} });
  const otherFetch = (path: string, init?: RequestInit) => other(new Request(BASE + path, init));
  try {
    const { client, token: before } = await tenant(t);
    assert.is((await otherFetch('/v1/me', bearer(before))).status, 200, 'the other process has read the first key');
    const keys = async (argv: string[]) => {
      const out = await runCommand([...argv, '--json'], {
        sql: t.db.sql,
        now: Date.now(),
        progress: () => {},
        tokenTtlSeconds: 3600,
      });
      assert.is(out.code, 0, out.stderr);
      return JSON.parse(out.stdout);
    };
    const rotated = await keys(['keys', 'rotate']);
    assert.is(rotated.current, true);
    assert.is.not(rotated.kid, kidOf(before));

    const listed = (await keys(['keys', 'list'])).keys;
    assert.equal(
      listed.map((k: { kid: string; current: boolean }) => [k.kid, k.current]),
      [
        [rotated.kid, true],
        [kidOf(before), false],
      ],
    );
    assert.is(listed[0].retiredAt, null);
    // Retired once every token the old key may still sign has expired: the lifetime and a margin from now.
    const retiresIn = Date.parse(listed[1].retiredAt) - Date.now();
    assert.ok(retiresIn > 3600_000 && retiresIn < 3600_000 + 120_000, `retires in ${retiresIn} ms`);
    assert.not.ok(JSON.stringify(listed).includes('secret'), 'no secret is listed');

    // Until its keys are read again a process signs with the old key; the other process verifies that token.
    const token = async () => {
      const res = await t.fetch(
        '/api/connect/token',
        tokenRequest({
          grant_type: 'client_credentials',
          client_id: client.clientId,
          client_secret: client.clientSecret,
        }),
      );
      assert.is(res.status, 200);
      return (await res.json()).access_token as string;
    };
    const stale = await token();
    assert.is(kidOf(stale), kidOf(before));
    t.clock.advance(KEY_REFRESH_MS);
    await token(); // starts the read in the background
    // Token requests, each a round trip to the database, until the read has landed: a condition, bounded, no sleep.
    let fresh = await token();
    for (let i = 0, until = Date.now() + 30_000; i < 1000 && Date.now() < until && kidOf(fresh) !== rotated.kid; i++)
      fresh = await token();
    assert.is(kidOf(fresh), rotated.kid, 'the new key signs once the keys are read again');
    // The other process has not read the keys since: a token of the new key sends it to read them, once.
    for (const [which, bearerToken] of [
      ['before the rotation', before],
      ['by the old key after it', stale],
      ['by the new key', fresh],
    ])
      for (const [where, fetch] of [
        ['this process', t.fetch],
        ['the other process', otherFetch],
      ] as const)
        assert.is((await fetch('/v1/me', bearer(bearerToken))).status, 200, `a token signed ${which}, on ${where}`);

    // Retired, its time come: a process that reads the keys after that refuses what the old key signed.
    await t.db.sql`update signing_keys set retired_at = now() - interval '1 second' where kid = ${kidOf(before)}`;
    const third = createApp({ sql: t.db.sql, config: t.config, clock: () => t.clock.now, log: () => {} });
    try {
      assert.is((await third(new Request(`${BASE}/v1/me`, bearer(stale)))).status, 401, 'the retired key');
      assert.is((await third(new Request(`${BASE}/v1/me`, bearer(fresh)))).status, 200, 'the current key');
    } finally {
      await third.close();
    }
  } finally {
    await other.close();
    await t.close();
  }
});

it('keys list on a database whose server never started: no keys yet; the first rotation makes the only key', async () => {
  const t = await testApp();
  try {
    const run = (argv: string[]) =>
      runCommand([...argv, '--json'], { sql: t.db.sql, now: Date.now(), progress: () => {}, tokenTtlSeconds: 60 });
    await t.db.sql`delete from signing_keys`;
    assert.equal(JSON.parse((await run(['keys', 'list'])).stdout), { keys: [] });
    const made = JSON.parse((await run(['keys', 'rotate'])).stdout);
    const { keys } = JSON.parse((await run(['keys', 'list'])).stdout);
    assert.equal(
      keys.map((k: { kid: string; current: boolean }) => [k.kid, k.current]),
      [[made.kid, true]],
    );
    assert.is(
      (await runCommand(['keys', 'rotate', '--kid', 'x'], { sql: t.db.sql, now: 0, progress: () => {} })).code,
      2,
    );
  } finally {
    await t.close();
  }
});

it.run();
