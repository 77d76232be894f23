import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { testApp, type TestApp } from './support/app.ts';
import { tokenVerifier, type TokenIssuers } from '../src/auth/accessTokens.ts';
import type { SigningKeys } from '../src/auth/signingKeys.ts';
import { AUDIENCE } from '../src/auth/scopes.ts';
import { bearer, cli, createClient, createOrg, getToken, type Client } from './support/fixtures.ts';

type Ctx = { t: TestApp; org: string; client: Client; token: string };
const it = suite<Ctx>('bearer authentication');
it.before(async (ctx) => {
  ctx.t = await testApp();
  ctx.org = await createOrg(ctx.t.db.sql);
  ctx.client = await createClient(ctx.t.db.sql, ctx.org);
  ctx.token = await getToken(ctx.t, ctx.client);
});
it.after(async (ctx) => ctx.t.close());

async function signingKey(t: TestApp) {
  const [row] = await t.db.sql`select kid, secret from signing_keys order by created_at desc limit 1`;
  return { kid: row.kid as string, secret: new Uint8Array(row.secret) };
}

/** A token like a real one, with some claims or header fields changed, signed with our own key. */
async function forged(
  t: TestApp,
  token: string,
  change: { claims?: Record<string, unknown>; drop?: string[]; header?: Record<string, unknown> } = {},
) {
  const key = await signingKey(t);
  const claims: Record<string, unknown> = { ...decodeJwt(token), ...change.claims };
  for (const name of change.drop ?? []) delete claims[name];
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: key.kid, ...change.header })
    .sign(key.secret);
}

async function expectInvalidToken(t: TestApp, init: RequestInit) {
  const res = await t.fetch('/v1/me', init);
  assert.is(res.status, 401);
  assert.is(res.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
  const body = await res.json();
  assert.is(body.type, 'http://readout.test/problems/invalid-token');
  return { ...body, traceId: undefined };
}

it('a token spelt any other way than canonical base64url is invalid-token; the original still reads /v1/me', async ({
  t,
  token,
}) => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const segments = token.split('.');
  // Mutations that leave the bytes a lenient decoder reads unchanged, or nearly: each must still be refused.
  const mutation = fc.oneof(
    fc.record({ kind: fc.constant('pad' as const), segment: fc.nat(2), pad: fc.constantFrom('=', '==', '===') }),
    fc.record({
      kind: fc.constant('foreign' as const),
      segment: fc.nat(2),
      at: fc.nat(),
      char: fc.constantFrom('+', '/', '=', '%', '!', '*', 'é'),
    }),
    fc.record({ kind: fc.constant('extra bits' as const), segment: fc.nat(2), bits: fc.integer({ min: 1, max: 15 }) }),
    fc.record({ kind: fc.constant('segments' as const), extra: fc.constantFrom('.', '..', '.x', '') }),
  );
  const mutate = (m: Record<string, unknown>): string | undefined => {
    const parts = [...segments];
    const i = (m.segment as number) ?? 0;
    if (m.kind === 'pad') parts[i] += m.pad;
    else if (m.kind === 'foreign') {
      const at = (m.at as number) % (parts[i].length + 1);
      parts[i] = parts[i].slice(0, at) + m.char + parts[i].slice(at);
    } else if (m.kind === 'extra bits') {
      // Only a segment whose length leaves spare bits (not a multiple of four) can carry them.
      const rest = parts[i].length % 4;
      if (rest === 0) return undefined;
      const last = alphabet.indexOf(parts[i].at(-1)!);
      const spare = rest === 2 ? 0x0f : 0x03;
      const changed = last | ((m.bits as number) & spare);
      if (changed === last) return undefined;
      parts[i] = parts[i].slice(0, -1) + alphabet[changed];
    } else return m.extra === '' ? parts.slice(0, 2).join('.') : parts.join('.') + m.extra;
    return parts.join('.');
  };
  let refused = 0;
  await fc.assert(
    fc.asyncProperty(mutation, async (m) => {
      const mutated = mutate(m as Record<string, unknown>);
      if (mutated === undefined || mutated === token) return;
      const res = await t.fetch('/v1/me', { headers: { authorization: `Bearer ${mutated}` } });
      await res.arrayBuffer();
      assert.is(res.status, 401, `${(m as { kind: string }).kind}: ${mutated.slice(-12)}`);
      refused++;
    }),
    { numRuns: 120 },
  );
  assert.ok(refused > 60, `${refused} mutations refused`);
  assert.is((await t.fetch('/v1/me', bearer(token))).status, 200, 'the original');
});

it('a valid token reads /v1/me', async ({ t, token, client, org }) => {
  const res = await t.fetch('/v1/me', bearer(token));
  assert.is(res.status, 200);
  const body = await res.json();
  assert.is(body.clientId, client.clientId);
  assert.is(body.organizationId, org);
  assert.equal(body.allowList, { reports: 'all', adAccounts: 'all' });
  assert.is(body.nearestSecretExpiry, null);
});

it('every kind of bad token gets the same 401 invalid-token body', async ({ t, token }) => {
  const now = Math.floor(t.clock.now / 1000);
  const otherKey = new TextEncoder().encode('x'.repeat(32));
  const [head, payload] = token.split('.');
  const unsigned = `${btoa(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).replace(/=+$/, '')}.${payload}.`;
  const cases: Record<string, RequestInit> = {
    missing: {},
    'not bearer': { headers: { authorization: `Basic ${btoa('a:b')}` } },
    malformed: bearer('not.a.jwt'),
    'alg none': bearer(unsigned),
    'another key': bearer(
      await new SignJWT(decodeJwt(token))
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: decodeProtectedHeader(token).kid! })
        .sign(otherKey),
    ),
    'tampered payload': bearer(
      `${head}.${btoa(JSON.stringify({ ...decodeJwt(token), scope: 'reports:export' })).replace(/=+$/, '')}.${token.split('.')[2]}`,
    ),
    expired: bearer(await forged(t, token, { claims: { iat: now - 7200, exp: now - 3600 } })),
    'another audience': bearer(await forged(t, token, { claims: { aud: 'app' } })),
    'no audience': bearer(await forged(t, token, { drop: ['aud'] })),
    'another issuer': bearer(await forged(t, token, { claims: { iss: 'https://elsewhere' } })),
    'a person rather than a client': bearer(
      await forged(t, token, { claims: { sub: 'user-42' }, drop: ['client_id', 'organization_id'] }),
    ),
    'an unknown kid': bearer(await forged(t, token, { header: { kid: 'k_unknown' } })),
  };
  const bodies = [];
  for (const [name, init] of Object.entries(cases)) bodies.push([name, await expectInvalidToken(t, init)] as const);
  for (const [name, body] of bodies) assert.equal(body, bodies[0][1], name);
});

it('a token right after a valid one is judged on its own: one changed character is refused, the valid one still reads', async ({
  t,
  token,
}) => {
  assert.is((await t.fetch('/v1/me', bearer(token))).status, 200);
  // A character inside the signature: the last one's low bits are padding, which base64url decoding drops.
  const changed = token.at(-5) === 'A' ? 'B' : 'A';
  await expectInvalidToken(t, bearer(`${token.slice(0, -5)}${changed}${token.slice(-4)}`));
  await expectInvalidToken(t, { headers: { authorization: `Bearer ${token}x` } });
  assert.is((await t.fetch('/v1/me', bearer(token))).status, 200);
});

it('a token expires after its lifetime', async ({ t, client }) => {
  const token = await getToken(t, client);
  assert.is((await t.fetch('/v1/me', bearer(token))).status, 200);
  t.clock.advance(3600_000);
  await expectInvalidToken(t, bearer(token));
  t.clock.now -= 3600_000;
});

it('revoking a client stops its live token within one second', async ({ t, org }) => {
  const doomed = await createClient(t.db.sql, org);
  const token = await getToken(t, doomed);
  assert.is((await t.fetch('/v1/me', bearer(token))).status, 200);
  await cli(t.db.sql, ['client', 'revoke', '--client', doomed.clientId]);
  t.clock.advance(1000);
  await expectInvalidToken(t, bearer(token));
});

it('revoking a secret leaves live tokens working but refuses new ones', async ({ t, org }) => {
  const client = await createClient(t.db.sql, org);
  const token = await getToken(t, client);
  await cli(t.db.sql, ['client', 'secret', 'revoke', '--client', client.clientId, '--secret', client.secretId]);
  t.clock.advance(1000);
  assert.is((await t.fetch('/v1/me', bearer(token))).status, 200);
  try {
    await getToken(t, client);
    assert.unreachable();
  } catch (error) {
    assert.match(String(error), /401/);
  }
});

it('/v1/me reports allow-list sizes and the nearest secret expiry', async ({ t, org }) => {
  const [report, account] = [crypto.randomUUID(), crypto.randomUUID()];
  // Allow-lists name real rows; make two ids exist for the listing below.
  await t.db
    .sql`insert into ad_accounts (id, organization_id, platform, external_id, name, currency) values (${account}, ${org}, 'google-ads', 'x1', 'A', 'USD')`;
  await t.db
    .sql`insert into reports (id, organization_id, name, kind, currency) values (${report}, ${org}, 'R', 'standard', 'USD')`;
  const client = await createClient(t.db.sql, org, { reports: report, adAccounts: 'all' });
  const soon = new Date(t.clock.now + 86_400_000).toISOString();
  const later = new Date(t.clock.now + 2 * 86_400_000).toISOString();
  await cli(t.db.sql, ['client', 'secret', 'add', '--client', client.clientId, '--expires', later], t.clock.now);
  await cli(t.db.sql, ['client', 'secret', 'add', '--client', client.clientId, '--expires', soon], t.clock.now);
  const body = await (await t.fetch('/v1/me', bearer(await getToken(t, client)))).json();
  assert.equal(body.allowList, { reports: 1, adAccounts: 'all' });
  assert.is(body.nearestSecretExpiry, soon);
});

it.run();

// --- verified tokens kept in memory ------------------------------------------------------------------------------

const kept = suite('verified tokens kept in memory');
const SECRET = new TextEncoder().encode('a test secret of thirty-two bytes!');
const ISSUER = 'https://readout.example';

/** A verifier over one key, counting how often a signature is checked (each check looks its key up). */
function countingVerifier() {
  const checks = { count: 0 };
  const keys: SigningKeys = {
    current: async () => ({ kid: 'k1', secret: SECRET }),
    find: async (kid) => {
      checks.count++;
      return kid === 'k1' ? { kid, secret: SECRET } : undefined;
    },
    load: async () => {},
  };
  const issuers: TokenIssuers = {
    own: ISSUER,
    register: async () => {},
    load: async () => {},
    accepts: async (issuer) => issuer === ISSUER,
  };
  return { verify: tokenVerifier(keys, issuers), checks };
}

const tokenExpiring = (expSeconds: number, secret = SECRET) =>
  new SignJWT({
    client_id: 'rdc_kept',
    organization_id: '2f0b5f4e-8a0c-4d4e-9a51-0d6a3f1f2b7c',
    scope: 'reports:read',
    report_ids: [],
    ad_account_ids: [],
    reports_all: true,
    ad_accounts_all: true,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: 'k1' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject('rdc_kept')
    .setIssuedAt(expSeconds - 3600)
    .setExpirationTime(expSeconds)
    .sign(secret);

kept('a token that has expired is refused from memory, its signature not checked again on every request', async () => {
  const { verify, checks } = countingVerifier();
  const exp = 2_000_000_000;
  const token = await tokenExpiring(exp);
  assert.ok(await verify(token, exp * 1000 - 1));
  for (let i = 0; i < 3; i++) assert.is(await verify(token, exp * 1000 + i), undefined);
  assert.is(checks.count, 1);
});

kept('an expired token first seen after its expiry is checked once, then refused from memory', async () => {
  const { verify, checks } = countingVerifier();
  const exp = 2_000_000_000;
  const token = await tokenExpiring(exp);
  for (let i = 0; i < 3; i++) assert.is(await verify(token, exp * 1000 + 60_000), undefined);
  assert.is(checks.count, 1);
});

kept('an expired token read again with the clock set back before its exp is checked afresh, and holds', async () => {
  const { verify, checks } = countingVerifier();
  const exp = 2_000_000_000;
  const token = await tokenExpiring(exp);
  assert.is(await verify(token, exp * 1000 + 1), undefined);
  assert.ok(await verify(token, exp * 1000 - 60_000));
  assert.is(checks.count, 2);
});

kept('a token whose signature does not hold is never kept: each one is checked', async () => {
  const { verify, checks } = countingVerifier();
  const exp = 2_000_000_000;
  const token = await tokenExpiring(exp, new TextEncoder().encode('another secret of thirty-two bytes'));
  for (const now of [exp * 1000 - 1, exp * 1000 + 1, exp * 1000 + 2]) assert.is(await verify(token, now), undefined);
  assert.is(checks.count, 3);
});

kept.run();
