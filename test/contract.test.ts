import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Validator } from '@seriousme/openapi-schema-validator';
import { gunzipSync } from 'node:zlib';
import { toJsonSchema } from '@valibot/to-json-schema';
import { PROBLEM_TYPES } from '../src/http/problem.ts';
import { PLATFORMS } from '../src/dataModel.ts';
import { GROUPINGS } from '../src/report/params.ts';
import { RESPONSE_SCHEMAS } from '../src/routes/schemas.ts';
import { DIMENSION_KEYS } from '../src/report/dimensions.ts';
import { groupingSchemas, schemaName } from '../scripts/groupingSchemas.ts';
import { SCOPES } from '../src/auth/scopes.ts';
import { testApp, type TestApp } from './support/app.ts';
import { doc, shape, validateResponse } from './support/contract.ts';
import { bearer, createClient, getToken, tokenRequest } from './support/fixtures.ts';
import { seedDemo, type DemoIds } from './support/demo.ts';

const document = suite('the document');

document('spec/openapi.json is valid OpenAPI 3.1', async () => {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  assert.is(validator.version, '3.1');
  assert.ok(result.valid, JSON.stringify(result.errors));
});

const routed = () =>
  import('../src/app.ts').then(async ({ createApp }) => {
    const { loadConfig } = await import('../src/config.ts');
    const app = createApp({ sql: {} as never, config: loadConfig({}), log: () => {} });
    return app.routes
      .filter(
        ([method, path]) =>
          (!path.includes('*') && !path.startsWith('/problems') && method !== 'ALL') || path === '/api/connect/token',
      )
      .map(([method, path]) => `${method === 'ALL' ? 'POST' : method} ${path.replace(/:\w+/g, '{}')}`)
      .sort();
  });

document('every route is documented and every documented path is routed', async () => {
  const documented = Object.entries(doc.paths)
    .flatMap(([path, item]) =>
      Object.keys(item as object).map((method) => `${method.toUpperCase()} ${path.replace(/\{\w+\}/g, '{}')}`),
    )
    .sort();
  assert.equal(await routed(), documented);
  assert.is(documented.filter((p) => p.startsWith('GET /v1')).length, 16, 'the OpenAPI document: sixteen paths');
});

for (const [name, schema] of Object.entries(RESPONSE_SCHEMAS).filter(([n]) => !n.startsWith('Data'))) {
  document(`the valibot schema ${name} agrees with the document (fields, types, required, enums, bounds)`, () => {
    const ours = shape(
      toJsonSchema(schema, { target: 'draft-2020-12', errorMode: 'ignore' }) as Record<string, unknown>,
    );
    assert.equal(ours, shape(doc.components.schemas[name]));
  });
}

document('each grouping has its own record, row and dimensions, as scripts/groupingSchemas.ts writes them', () => {
  const written = groupingSchemas();
  for (const [name, schema] of Object.entries(written))
    assert.equal(doc.components.schemas[name], schema, `${name}: run npm run spec:groupings`);
  const json = (schema: object) =>
    toJsonSchema(schema as never, { target: 'draft-2020-12', errorMode: 'ignore' }) as Record<string, any>;
  // The valibot schemas the tests read answers with: the record's common fields, and a row's metrics.
  const record = json(RESPONSE_SCHEMAS.DataRecord);
  for (const key of ['groupBy', 'rows']) delete record.properties[key];
  record.required = record.required.filter((key: string) => key !== 'groupBy' && key !== 'rows');
  assert.equal(shape(record), shape(doc.components.schemas.DataRecordBase));
  const row = shape(json(RESPONSE_SCHEMAS.DataRow))!;
  for (const grouping of GROUPINGS) {
    const documented = shape(doc.components.schemas[schemaName(grouping, 'DataRow')])!;
    assert.equal(documented.properties!.metrics, row.properties!.metrics);
    assert.equal(documented.properties!.compare, row.properties!.compare);
    assert.equal(
      doc.components.schemas[schemaName(grouping, 'Dimensions')].required,
      [...DIMENSION_KEYS[grouping]],
      grouping,
    );
  }
});

document('the problem types are the thirteen of the code, with the same statuses and titles', () => {
  const documented = doc.components.schemas.Problem['x-problem-types'].map(
    (p: { type: string; status: number; title: string }) => [p.type, p.status, p.title],
  );
  assert.equal(
    documented,
    Object.entries(PROBLEM_TYPES).map(([type, { status, title }]) => [type, status, title]),
  );
});

document('scopes, groupings, platforms and page sizes agree with the code', () => {
  assert.equal(Object.keys(doc.components.securitySchemes.oauth2.flows.clientCredentials.scopes), [...SCOPES]);
  assert.equal(doc.components.parameters.groupBy.schema.enum, [...GROUPINGS]);
  assert.equal(doc.components.schemas.Platform.enum, [...PLATFORMS]);
  assert.equal(
    [doc.components.parameters.pageSize.schema.minimum, doc.components.parameters.pageSize.schema.maximum],
    [1, 200],
  );
});

document('every metered operation states its scope and quota cost', () => {
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Record<string, unknown>>>)) {
    for (const [method, op] of Object.entries(item)) {
      if (path === '/api/connect/token') continue;
      assert.ok('x-quota-cost' in op, `${method} ${path} cost`);
      if (!['/v1/health', '/v1/openapi.json', '/v1/docs', '/v1/me'].includes(path))
        assert.type(op['x-scope'], 'string', `${method} ${path} scope`);
    }
  }
});

document.run();

// ---

type Ctx = { t: TestApp; d: DemoIds };
const live = suite<Ctx>('live responses match the document');
live.before(async (ctx) => {
  ctx.t = await testApp({ env: { TOKEN_TTL_S: '86400' }, demo: true });
  ctx.d = await seedDemo(ctx.t);
});
live.after(async (ctx) => ctx.t.close());

async function check(ctx: Ctx, docPath: string, url: string, expected: number, init?: RequestInit) {
  const res = await ctx.t.fetch(url, init ?? bearer(ctx.d.token));
  assert.is(res.status, expected, `${url}: ${await res.clone().text()}`);
  const type = res.headers.get('content-type')!.split(';')[0];
  validateResponse(docPath, init?.method?.toLowerCase() ?? 'get', res.status, await res.json(), type);
}

live("every endpoint's success answer", async (ctx) => {
  const { d } = ctx;
  const report = d.reports['Cross-channel performance'];
  const range = 'dateFrom=2026-01-01&dateTo=2026-01-31';
  await check(ctx, '/v1/health', '/v1/health', 200, {});
  await check(ctx, '/v1/me', '/v1/me', 200);
  await check(ctx, '/v1/organizations', '/v1/organizations', 200);
  await check(ctx, '/v1/organizations/{organizationId}', `/v1/organizations/${d.org}`, 200);
  await check(ctx, '/v1/organizations/{organizationId}/ad-accounts', `/v1/organizations/${d.org}/ad-accounts`, 200);
  await check(ctx, '/v1/organizations/{organizationId}/segments', `/v1/organizations/${d.org}/segments`, 200);
  await check(ctx, '/v1/organizations/{organizationId}/campaigns', `/v1/organizations/${d.org}/campaigns`, 200);
  await check(ctx, '/v1/organizations/{organizationId}/metrics', `/v1/organizations/${d.org}/metrics`, 200);
  await check(ctx, '/v1/metrics', '/v1/metrics', 200);
  await check(ctx, '/v1/reports', '/v1/reports', 200);
  await check(ctx, '/v1/reports/{reportId}', `/v1/reports/${report}`, 200);
  for (const groupBy of GROUPINGS) {
    const id =
      groupBy === 'segment'
        ? d.reports['Segment overview']
        : groupBy === 'video'
          ? d.reports['Video performance']
          : report;
    await check(ctx, '/v1/reports/{reportId}/data', `/v1/reports/${id}/data?${range}&groupBy=${groupBy}`, 200);
    // A period's key beside the grouping's own (the dimensions allow no other key).
    if (groupBy !== 'month')
      for (const interval of ['day', 'week', 'month'])
        await check(
          ctx,
          '/v1/reports/{reportId}/data',
          `/v1/reports/${id}/data?${range}&groupBy=${groupBy}&interval=${interval}`,
          200,
        );
  }
  // A record of one grouping does not pass for another's: the dimensions tell them apart.
  const campaigns = await (
    await ctx.t.fetch(`/v1/reports/${report}/data?${range}&groupBy=campaign`, bearer(d.token))
  ).json();
  assert.ok(campaigns.rows[0].dimensions.campaignName);
  assert.throws(() =>
    validateResponse('/v1/reports/{reportId}/data', 'get', 200, { ...campaigns, groupBy: 'ad-account' }),
  );
  const [token] = [
    await ctx.t.fetch(
      '/api/connect/token',
      tokenRequest({ grant_type: 'client_credentials', client_id: 'rdc_x', client_secret: 'y' }),
    ),
  ];
  validateResponse('/api/connect/token', 'post', 401, await token.json());
  const client = await createClient(ctx.t.db.sql, d.org);
  const granted = await ctx.t.fetch(
    '/api/connect/token',
    tokenRequest({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
  );
  validateResponse('/api/connect/token', 'post', 200, await granted.json());
  const badScope = await ctx.t.fetch(
    '/api/connect/token',
    tokenRequest({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      scope: 'x',
    }),
  );
  validateResponse('/api/connect/token', 'post', 400, await badScope.json(), 'application/json');
});

live('error answers are documented problem documents', async (ctx) => {
  const { d } = ctx;
  const report = d.reports['Cross-channel performance'];
  await check(ctx, '/v1/reports', '/v1/reports?pageSize=201', 400);
  await check(ctx, '/v1/reports', '/v1/reports', 401, bearer('nope'));
  await check(ctx, '/v1/reports/{reportId}', `/v1/reports/${crypto.randomUUID()}`, 404);
  await check(
    ctx,
    '/v1/reports/{reportId}/data',
    `/v1/reports/${report}/data?groupBy=segment&dateFrom=2026-01-01&dateTo=2026-01-02`,
    400,
  );
  const narrow = await getToken(ctx.t, await createClient(ctx.t.db.sql, d.org), 'segments:read');
  await check(ctx, '/v1/reports', '/v1/reports', 403, bearer(narrow));
});

live('the document is served with servers from BASE_URL, without a token and without quota', async ({ t }) => {
  const res = await t.fetch('/v1/openapi.json');
  assert.is(res.status, 200);
  assert.is(res.headers.get('ratelimit'), null);
  const served = await res.json();
  assert.equal(served.servers, [{ url: 'http://readout.test', description: 'This server' }]);
  assert.equal(Object.keys(served.paths), Object.keys(doc.paths));
});

live(
  '/v1/docs is the Redoc reference of this document, its scripts allowed by hash, nothing loaded from elsewhere',
  async ({ t }) => {
    const res = await t.fetch('/v1/docs');
    assert.is(res.status, 200);
    assert.match(res.headers.get('content-type')!, 'text/html');
    const page = await res.text();
    const data = /<script id="openapi" type="application\/json">([^<]*)<\/script>/.exec(page)?.[1];
    assert.ok(data, 'the document is inline');
    const shown = JSON.parse(data);
    assert.equal(Object.keys(shown.paths), Object.keys(doc.paths));
    assert.equal(shown.servers, [{ url: 'http://readout.test', description: 'This server' }]);
    // The examples name this server; the problem types are listed, each linked to its page.
    assert.match(shown.paths['/v1/me'].get['x-codeSamples'][0].source, /curl -s http:\/\/readout\.test\/v1\/me/);
    for (const type of Object.keys(PROBLEM_TYPES))
      assert.ok(shown.info.description.includes(`(http://readout.test/problems/${type})`), type);
    assert.match(page, /Redoc\.init\(/);
    const csp = res.headers.get('content-security-policy')!;
    const hashes = csp.match(/'sha256-[^']+'/g) ?? [];
    assert.is(hashes.length, 2, csp);
    assert.match(csp, /default-src 'none'/);
    assert.not.match(csp, /script-src[^;]*'unsafe-inline'/);
    assert.not.match(page, /<link rel="stylesheet"|@import|src="http/i);
    // A megabyte of script: gzip when the client takes it (not when it refuses it with q=0), the same page either way.
    assert.is(res.headers.get('vary'), 'accept-encoding');
    const zipped = await t.fetch('/v1/docs', { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    assert.is(zipped.headers.get('content-encoding'), 'gzip');
    const bytes = Buffer.from(await zipped.arrayBuffer());
    assert.ok(bytes.length < page.length / 3, `${bytes.length} bytes`);
    assert.is(gunzipSync(bytes).toString('utf8'), page);
    const refused = await t.fetch('/v1/docs', { headers: { 'accept-encoding': 'gzip;q=0, identity' } });
    assert.is(refused.headers.get('content-encoding'), null);
    assert.is(await refused.text(), page);
  },
);

live('/problems/{type} describes each type; an unknown one is 404', async ({ t }) => {
  for (const type of Object.keys(PROBLEM_TYPES)) {
    const res = await t.fetch(`/problems/${type}`);
    assert.is(res.status, 200, type);
    assert.match(await res.text(), type);
  }
  const json = await (
    await t.fetch('/problems/rate-limit-exceeded', { headers: { accept: 'application/json' } })
  ).json();
  assert.is(json.status, 429);
  assert.is((await t.fetch('/problems/nope')).status, 404);
});

live.run();
