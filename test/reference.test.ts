// The reference people read: spec/openapi.json lints clean with Spectral's spectral:oas ruleset and Redocly's
// recommended rules, each of its examples is valid against its schema, each operation has a curl example that asks
// for its own path with its own parameters, and each states its quota cost in words. Redoc's bundle is served with
// its one request to another host taken out.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { readFileSync } from 'node:fs';
import { REDOC_LOGO, redocScript } from '../src/routes/docsPage.ts';
import { doc, validateResponse } from './support/contract.ts';

const it = suite('reference');
const text = readFileSync('spec/openapi.json', 'utf8');

type Json = Record<string, any>;
const operations = Object.entries(doc.paths as Json).flatMap(([path, item]) =>
  Object.entries(item as Json).map(([method, op]) => ({ path, method, op: op as Json })),
);
const resolve = (node: Json): Json =>
  node.$ref ? doc.components[node.$ref.split('/')[2]][node.$ref.split('/')[3]] : node;

it("Spectral's spectral:oas ruleset finds nothing", async () => {
  const { Spectral, Document } = spectralCore;
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [oas] } as never);
  const results = await spectral.run(new Document(text, spectralParsers.Json, 'spec/openapi.json'));
  assert.equal(
    results.map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`),
    [],
  );
});

it("Redocly's recommended rules find nothing", async () => {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: text, absoluteRef: 'spec/openapi.json', config });
  assert.equal(
    problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`),
    [],
  );
});

it('every response of every operation has an example (but a workbook), and each is valid against its schema', () => {
  let checked = 0;
  for (const { path, method, op } of operations) {
    for (const [status, raw] of Object.entries(op.responses as Json)) {
      for (const [type, media] of Object.entries((resolve(raw as Json).content ?? {}) as Json)) {
        const values = media.examples
          ? Object.values(media.examples as Json).map((e) => e.value)
          : 'example' in media
            ? [media.example]
            : [];
        if (type.includes('spreadsheetml')) continue; // a binary file: its schema is `format: binary`
        assert.ok(values.length, `${method.toUpperCase()} ${path} ${status} ${type} has an example`);
        for (const value of values) validateResponse(path, method, Number(status), value, type);
        checked += values.length;
      }
    }
  }
  assert.ok(checked > 100, `${checked} examples`);
});

it('every operation has a curl example for its own path, with parameters it declares', () => {
  for (const { path, method, op } of operations) {
    const samples = op['x-codeSamples'] as { lang: string; label: string; source: string }[];
    assert.equal(
      samples?.map((s) => s.label),
      ['curl'],
      `${path}: one curl example`,
    );
    const source = samples[0].source;
    const url = /curl [^"]*?"?(https:\/\/readout\.example[^"\s]*)/.exec(source)?.[1];
    assert.ok(url, `${path}: ${source}`);
    const asked = new URL(url.replace(/\$(\w+)/g, 'VAR-$1'));
    assert.match(
      asked.pathname,
      new RegExp(`^${path.replace(/\{\w+\}/g, 'VAR-[A-Z_]+').replace(/\./g, '\\.')}$`),
      `${path}: ${url}`,
    );
    const declared = new Set(
      (op.parameters ?? [])
        .map((p: Json) => resolve(p))
        .filter((p: Json) => p.in === 'query')
        .map((p: Json) => p.name),
    );
    for (const name of asked.searchParams.keys())
      assert.ok(declared.has(name), `${path}: ${name} is a declared parameter`);
    if (method === 'post') assert.match(source, /-d grant_type=client_credentials/);
    if (op.security?.length) assert.match(source, /-H "Authorization: Bearer \$TOKEN"/, `${path} sends the token`);
  }
});

it('every operation states its scope and its quota cost in words', () => {
  for (const { path, op } of operations) {
    const words = /Quota cost: (one|two) unit|No quota|no quota/.exec(op.description)?.[0];
    assert.ok(words, `${path}: ${op.description}`);
    if (op['x-scope']) assert.ok(op.description.includes(`Scope: \`${op['x-scope']}\``), `${path} names its scope`);
    assert.not.match(op.description, /adAccountsInScope/, 'the machine-readable cost is not shown to people');
  }
});

it("Redoc's bundle is served without its request to another host, and nothing in it can end the page's script", () => {
  const script = redocScript();
  assert.not.ok(script.includes(REDOC_LOGO));
  assert.not.match(script, /<\/script/i);
  assert.is(
    JSON.parse(readFileSync('package.json', 'utf8')).dependencies.redoc,
    '2.5.4',
    'pinned: the logo address is checked against this version',
  );
});

it('the licence is MIT: LICENSE, package.json and the document say so', () => {
  assert.match(readFileSync('LICENSE', 'utf8'), /^MIT License\n/);
  assert.is(JSON.parse(readFileSync('package.json', 'utf8')).license, 'MIT');
  assert.equal(doc.info.license, { name: 'MIT', identifier: 'MIT' });
});

it.run();
