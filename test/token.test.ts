import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { REFUSAL_FLOOR_MS } from '../src/routes/token.ts';
import { testApp, type TestApp } from './support/app.ts';
import { ALL_SCOPES, cli, createClient, createOrg, tokenRequest, type Client } from './support/fixtures.ts';

type Ctx = { t: TestApp; org: string; client: Client };
const it = suite<Ctx>('token endpoint');
it.before(async (ctx) => {
  ctx.t = await testApp();
  ctx.org = await createOrg(ctx.t.db.sql);
  ctx.client = await createClient(ctx.t.db.sql, ctx.org, { scopes: 'reports:read reports:data campaigns:read' });
});
it.after(async (ctx) => ctx.t.close());

const form = (c: Client, extra: Record<string, string> = {}) => ({
  grant_type: 'client_credentials',
  client_id: c.clientId,
  client_secret: c.clientSecret,
  ...extra,
});
const basic = (id: string, secret: string) =>
  `Basic ${btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)}`;

it('form credentials get a Bearer JWT for 3600 s, not to be stored', async ({ t, client }) => {
  const res = await t.fetch('/api/connect/token', tokenRequest(form(client)));
  assert.is(res.status, 200);
  assert.is(res.headers.get('cache-control'), 'no-store');
  const body = await res.json();
  assert.is(body.token_type, 'Bearer');
  assert.is(body.expires_in, 3600);
  assert.type(body.access_token, 'string');
});

it('the token carries the claims of docs/decisions.md §9', async ({ t, org, client }) => {
  const { access_token } = await (await t.fetch('/api/connect/token', tokenRequest(form(client)))).json();
  const header = decodeProtectedHeader(access_token);
  assert.is(header.alg, 'HS256');
  assert.is(header.typ, 'at+jwt');
  assert.type(header.kid, 'string');
  const claims = decodeJwt(access_token);
  assert.is(claims.sub, client.clientId);
  assert.is(claims.client_id, client.clientId);
  assert.is(claims.aud, 'service-api');
  assert.is(claims.iss, 'http://readout.test');
  assert.is(claims.organization_id, org);
  assert.is(claims.scope, 'reports:read reports:data campaigns:read');
  assert.is(claims.reports_all, true);
  assert.is(claims.ad_accounts_all, true);
  assert.equal(claims.report_ids, []);
  assert.is(claims.exp! - claims.iat!, 3600);
  assert.type(claims.jti, 'string');
});

it('HTTP Basic client authentication works too', async ({ t, client }) => {
  const res = await t.fetch(
    '/api/connect/token',
    tokenRequest({ grant_type: 'client_credentials' }, { authorization: basic(client.clientId, client.clientSecret) }),
  );
  assert.is(res.status, 200);
});

it('a token requested with fewer scopes carries only those', async ({ t, client }) => {
  const res = await t.fetch('/api/connect/token', tokenRequest(form(client, { scope: 'reports:read' })));
  const { access_token, scope } = await res.json();
  assert.is(scope, 'reports:read');
  assert.is(decodeJwt(access_token).scope, 'reports:read');
});

it('asking for service-api by name is invalid_request', async ({ t, client }) => {
  const res = await t.fetch('/api/connect/token', tokenRequest(form(client, { scope: 'reports:read service-api' })));
  assert.is(res.status, 400);
  assert.is((await res.json()).error, 'invalid_request');
});

for (const scope of ['reports:export', 'nonsense:read', 'reports:read segments:read']) {
  it(`a scope the client lacks or that does not exist is invalid_scope (${scope})`, async ({ t, client }) => {
    const res = await t.fetch('/api/connect/token', tokenRequest(form(client, { scope })));
    assert.is(res.status, 400);
    assert.is(res.headers.get('cache-control'), 'no-store');
    assert.is((await res.json()).error, 'invalid_scope');
  });
}

it('unknown client, wrong secret: the same 401 invalid_client', async ({ t, client }) => {
  const wrong = await t.fetch('/api/connect/token', tokenRequest(form(client, { client_secret: 'rds_wrong' })));
  const unknown = await t.fetch(
    '/api/connect/token',
    tokenRequest(form({ ...client, clientId: 'rdc_00000000000000000000000000000000' })),
  );
  assert.is(wrong.status, 401);
  assert.is(unknown.status, 401);
  assert.equal(await wrong.json(), await unknown.json());
});

it('an unknown client and a wrong secret are both answered no sooner than the refusal floor: no timing oracle', async ({
  t,
  client,
}) => {
  // A lower bound only: a busy machine makes answers slower, never faster.
  for (const given of [form(client, { client_secret: 'rds_wrong' }), form({ ...client, clientId: 'rdc_0' })]) {
    for (let i = 0; i < 3; i++) {
      const began = performance.now();
      const res = await t.fetch('/api/connect/token', tokenRequest(given));
      assert.is(res.status, 401);
      assert.ok(performance.now() - began >= REFUSAL_FLOOR_MS, `${performance.now() - began} ms`);
    }
  }
});

it('a client id holding a NUL character is an unknown client, not a database error', async ({ t, client }) => {
  const res = await t.fetch(
    '/api/connect/token',
    tokenRequest(form({ ...client, clientId: `${client.clientId}\u0000` })),
  );
  assert.is(res.status, 401);
  assert.is((await res.json()).error, 'invalid_client');
});

it('with Basic, invalid_client carries WWW-Authenticate', async ({ t, client }) => {
  const res = await t.fetch(
    '/api/connect/token',
    tokenRequest({ grant_type: 'client_credentials' }, { authorization: basic(client.clientId, 'rds_nope') }),
  );
  assert.is(res.status, 401);
  assert.match(res.headers.get('www-authenticate')!, /^Basic /);
  assert.is((await res.json()).error, 'invalid_client');
});

it('a revoked secret is refused and another secret of the client still works', async ({ t, client }) => {
  const extra = await cli(t.db.sql, ['client', 'secret', 'add', '--client', client.clientId]);
  await cli(t.db.sql, ['client', 'secret', 'revoke', '--client', client.clientId, '--secret', extra.secretId]);
  const refused = await t.fetch(
    '/api/connect/token',
    tokenRequest(form({ ...client, clientSecret: extra.clientSecret })),
  );
  assert.is(refused.status, 401);
  assert.is((await refused.json()).error, 'invalid_client');
  assert.is((await t.fetch('/api/connect/token', tokenRequest(form(client)))).status, 200);
});

it('an expired secret is refused', async ({ t, client }) => {
  const expires = new Date(t.clock.now + 60_000).toISOString();
  const dated = await cli(
    t.db.sql,
    ['client', 'secret', 'add', '--client', client.clientId, '--expires', expires],
    t.clock.now,
  );
  const fields = form({ ...client, clientSecret: dated.clientSecret });
  assert.is((await t.fetch('/api/connect/token', tokenRequest(fields))).status, 200);
  t.clock.advance(61_000);
  assert.is((await t.fetch('/api/connect/token', tokenRequest(fields))).status, 401);
});

it('a revoked client is refused', async ({ t, org }) => {
  const doomed = await createClient(t.db.sql, org, { scopes: ALL_SCOPES });
  await cli(t.db.sql, ['client', 'revoke', '--client', doomed.clientId]);
  const res = await t.fetch('/api/connect/token', tokenRequest(form(doomed)));
  assert.is(res.status, 401);
  assert.is((await res.json()).error, 'invalid_client');
});

const badRequests: [string, RequestInit, string][] = [
  [
    'another grant type',
    tokenRequest({ grant_type: 'password', client_id: 'x', client_secret: 'y' }),
    'unsupported_grant_type',
  ],
  ['no grant type', tokenRequest({ client_id: 'x', client_secret: 'y' }), 'invalid_request'],
  [
    'a JSON body',
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"grant_type":"client_credentials"}' },
    'invalid_request',
  ],
  [
    'a repeated parameter',
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&grant_type=client_credentials',
    },
    'invalid_request',
  ],
  ['a body over 16 kB', tokenRequest({ grant_type: 'client_credentials', pad: 'x'.repeat(20_000) }), 'invalid_request'],
  ['no credentials', tokenRequest({ grant_type: 'client_credentials' }), 'invalid_request'],
];
for (const [what, init, error] of badRequests) {
  it(`${what} is refused as ${error}`, async ({ t }) => {
    const res = await t.fetch('/api/connect/token', init);
    assert.is(res.status, 400);
    assert.is((await res.json()).error, error);
  });
}

it('GET on the token endpoint is 405 with Allow: POST', async ({ t }) => {
  const res = await t.fetch('/api/connect/token');
  assert.is(res.status, 405);
  assert.is(res.headers.get('allow'), 'POST');
});

it('the secret never reaches a log line', async ({ t, client }) => {
  t.logs.length = 0;
  await t.fetch('/api/connect/token', tokenRequest(form(client)));
  assert.not.match(JSON.stringify(t.logs), client.clientSecret);
  assert.is(t.logs[0].clientId, client.clientId);
});

it.run();
