// Token attacks, the tenant isolation sweep, and secrets that never leak.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SignJWT, decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair } from 'jose';
import { constantTimeEqual } from '../src/auth/secrets.ts';
import { testApp, type TestApp } from './support/app.ts';
import { seedDemo, type DemoIds } from './support/demo.ts';
import { bearer, cli, createClient, getToken, tokenRequest } from './support/fixtures.ts';

type Ctx = { t: TestApp; d: DemoIds };
const setup = async (ctx: Ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400' }, demo: true });
  ctx.d = await seedDemo(ctx.t);
};

// --- token attacks -----------------------------------------------------------------------------------------------

const attacks = suite<Ctx>('token attacks');
attacks.before(setup);
attacks.after(async (ctx) => ctx.t.close());

const b64 = (value: unknown) => btoa(JSON.stringify(value)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');

attacks('every forged token gets the same 401 invalid-token body, but for traceId', async ({ t, d }) => {
  const token = d.token;
  const claims = decodeJwt(token);
  const header = decodeProtectedHeader(token);
  const [row] = await t.db.sql`select kid, secret from signing_keys order by created_at desc limit 1`;
  const key = new Uint8Array(row.secret);
  const now = Math.floor(t.clock.now / 1000);
  const sign = (c: Record<string, unknown>, h: Record<string, unknown> = {}) =>
    new SignJWT(c).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: header.kid!, ...h }).sign(key);
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const forged: Record<string, string> = {
    'alg none': `${b64({ alg: 'none', typ: 'at+jwt', kid: header.kid })}.${token.split('.')[1]}.`,
    'RS256 with a key of its own': await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: header.kid! })
      .sign(privateKey),
    'HS256 keyed with a public key': await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: header.kid! })
      .sign(new TextEncoder().encode(JSON.stringify(publicJwk))),
    'a foreign kid': await sign(claims, { kid: 'k_foreign' }),
    'a jwk in the header': await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', jwk: publicJwk })
      .sign(privateKey),
    'a tampered payload': `${token.split('.')[0]}.${b64({ ...claims, scope: 'reports:read reports:data reports:export', organization_id: d.otherOrg })}.${token.split('.')[2]}`,
    expired: await sign({ ...claims, iat: now - 7200, exp: now - 1 }),
    'not yet valid': await sign({ ...claims, nbf: now + 3600 }),
    'another issuer': await sign({ ...claims, iss: 'https://evil.example' }),
    'another audience': await sign({ ...claims, aud: 'app' }),
    'no audience': await sign(Object.fromEntries(Object.entries(claims).filter(([k]) => k !== 'aud'))),
    'no client claims (a person)': await sign({
      iss: claims.iss,
      aud: 'service-api',
      sub: 'user-7',
      exp: now + 600,
      iat: now,
    }),
    'another type': await sign(claims, { typ: 'JWT' }),
  };
  const bodies: [string, Record<string, unknown>][] = [];
  for (const [name, jwt] of Object.entries(forged)) {
    const res = await t.fetch('/v1/reports', bearer(jwt));
    assert.is(res.status, 401, name);
    assert.is(res.headers.get('www-authenticate'), 'Bearer error="invalid_token"', name);
    const body = await res.json();
    bodies.push([name, { ...body, traceId: undefined }]);
  }
  for (const [name, body] of bodies) assert.equal(body, bodies[0][1], name);
  assert.is((await t.fetch('/v1/reports', bearer(token))).status, 200, 'the real token still works');
});

attacks.run();

// --- isolation ---------------------------------------------------------------------------------------------------

const isolation = suite<Ctx & { limited: string }>('tenant isolation sweep');
isolation.before(async (ctx) => {
  await setup(ctx);
  const client = await createClient(ctx.t.db.sql, ctx.d.org, {
    reports: ctx.d.reports['Monthly spend'],
    adAccounts: ctx.d.accounts['google-ads'],
  });
  ctx.limited = await getToken(ctx.t, client);
});
isolation.after(async (ctx) => ctx.t.close());

isolation(
  "for every path with an id, another organization's and unlisted ids answer exactly as nonexistent ones",
  async ({ t, d, limited }) => {
    const nobody = crypto.randomUUID();
    const range = 'dateFrom=2026-01-01&dateTo=2026-01-31';
    const ids = {
      org: [d.otherOrg],
      report: [d.otherReport, d.reports['Video performance']],
    };
    const templates = [
      ['/v1/organizations/ID', 'org'],
      ['/v1/organizations/ID/ad-accounts', 'org'],
      ['/v1/organizations/ID/segments', 'org'],
      ['/v1/organizations/ID/campaigns', 'org'],
      ['/v1/organizations/ID/metrics', 'org'],
      ['/v1/reports/ID', 'report'],
      [`/v1/reports/ID/data?${range}`, 'report'],
      [`/v1/reports/ID/export.csv?${range}`, 'report'],
      [`/v1/reports/ID/export.xlsx?${range}`, 'report'],
    ] as const;
    for (const [template, kind] of templates) {
      const missing = await (await t.fetch(template.replace('ID', nobody), bearer(limited))).json();
      for (const id of ids[kind]) {
        const res = await t.fetch(template.replace('ID', id), bearer(limited));
        assert.is(res.status, 404, template.replace('ID', id));
        const body = await res.json();
        assert.equal({ ...body, traceId: 0, instance: 0 }, { ...missing, traceId: 0, instance: 0 }, template);
      }
    }
  },
);

isolation(
  'every id filter naming something out of reach gives an empty answer, not an error',
  async ({ t, d, limited }) => {
    const monthly = d.reports['Monthly spend'];
    const checks: [string, (body: any) => unknown][] = [
      [`/v1/reports?organizationId=${d.otherOrg}`, (b) => b.totalCount],
      [`/v1/organizations/${d.org}/campaigns?adAccountId=${d.otherAccount}`, (b) => b.totalCount],
      [`/v1/organizations/${d.org}/campaigns?adAccountId=${d.accounts['meta-ads']}`, (b) => b.totalCount],
      [`/v1/reports/${monthly}/data?adAccountIds=${d.accounts['meta-ads']}`, (b) => b.rows.length],
      [`/v1/reports/${monthly}/data?adAccountIds=${d.otherAccount}`, (b) => b.rows.length],
    ];
    for (const [url, size] of checks) {
      const res = await t.fetch(url, bearer(limited));
      assert.is(res.status, 200, url);
      assert.is(size(await res.json()), 0, url);
    }
    const csv = await (
      await t.fetch(`/v1/reports/${monthly}/export.csv?adAccountIds=${d.otherAccount}&groupBy=month`, bearer(limited))
    ).text();
    assert.is(csv.trim().split('\n').length, 1, 'a header and no rows');
  },
);

isolation.run();

// --- secrets -----------------------------------------------------------------------------------------------------

const secrets = suite<Ctx>('secrets');
secrets.before(setup);
secrets.after(async (ctx) => ctx.t.close());

secrets('no secret, hash or token appears in a log line, an error, /v1/me or client list', async ({ t, d }) => {
  const client = await createClient(t.db.sql, d.org);
  t.logs.length = 0;
  const ok = await t.fetch(
    '/api/connect/token',
    tokenRequest({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
  );
  const { access_token } = await ok.json();
  const wrong = await t.fetch(
    '/api/connect/token',
    tokenRequest({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: `${client.clientSecret}x`,
    }),
  );
  const outputs: string[] = [await wrong.text()];
  for (const path of ['/v1/me', '/v1/reports', '/v1/nope', '/v1/reports?pageSize=999'])
    outputs.push(await (await t.fetch(path, bearer(access_token))).text());
  outputs.push(await (await t.fetch('/v1/me', bearer(`${access_token}x`))).text());
  outputs.push(JSON.stringify(await cli(t.db.sql, ['client', 'list', '--org', d.org])));
  outputs.push(JSON.stringify(t.logs));
  const hashes = (
    await t.db.sql`select encode(secret_hash, 'hex') as h, encode(secret_hash, 'base64') as b from client_secrets`
  ).flatMap((r) => [r.h, r.b]);
  const [key] = await t.db.sql`select encode(secret, 'hex') as h, encode(secret, 'base64') as b from signing_keys`;
  const all = outputs.join('\n');
  for (const needle of [
    client.clientSecret,
    client.clientSecret.slice(4),
    access_token,
    access_token.split('.')[2],
    ...hashes,
    key.h,
    key.b,
  ]) {
    assert.not.ok(all.includes(needle), `leaked: ${needle.slice(0, 12)}…`);
  }
});

secrets('secret comparison is constant-time: it looks at every byte, whatever differs first', () => {
  const a = new Uint8Array(32).fill(7);
  let reads = 0;
  const counting = (bytes: Uint8Array) =>
    new Proxy(bytes, {
      get: (target, p) => (typeof p === 'string' && /^\d+$/.test(p) && reads++, Reflect.get(target, p)),
    });
  for (const differAt of [0, 31]) {
    const b = new Uint8Array(32).fill(7);
    b[differAt] = 8;
    reads = 0;
    assert.is(constantTimeEqual(counting(a) as Uint8Array, counting(b) as Uint8Array), false);
    assert.is(reads, 64, `differing at byte ${differAt}: every byte of both read`);
  }
  assert.is(constantTimeEqual(a, new Uint8Array(32).fill(7)), true);
  assert.is(constantTimeEqual(a, new Uint8Array(31).fill(7)), false);
});

secrets.run();
