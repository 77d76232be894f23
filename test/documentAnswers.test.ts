// Every example answer a document shows is the answer its request returns from the demo, on any day: a JSON block
// after the marker `<!-- the answer … -->` is compared with what the last curl request before it gets. The demo
// always holds December 2025 to March 2026 (cli/demo.ts, FIXED), the days the documents read. In a shown answer, "…"
// stands for any one value, and an array whose last item is "…" for its first items and more.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import openapi from '../spec/openapi.json' with { type: 'json' };
import { FIXED, seedDemo } from '../src/cli/demo.ts';
import { testApp, type TestApp } from './support/app.ts';
import { bearer, getToken } from './support/fixtures.ts';

/** A demo made as a first start makes it on that day, and its client's token. */
type Demo = { day: string; t: TestApp; token: string };
type Ctx = { demos: Demo[] };
const it = suite<Ctx>('documentAnswers');

// Made today, and made on a day long after the fixed months, when the 430 days before it no longer reach them.
it.before(async (ctx) => {
  ctx.demos = [];
  for (const now of [Date.now(), Date.parse('2028-06-01T08:00:00Z')]) {
    const t = await testApp();
    t.clock.now = now;
    const demo = await seedDemo(t.db.sql, now);
    const token = await getToken(t, { clientId: demo.clientId, clientSecret: demo.clientSecret, secretId: '' });
    ctx.demos.push({ day: new Date(now).toISOString().slice(0, 10), t, token });
  }
});
it.after(async (ctx) => {
  for (const demo of ctx.demos) await demo.t.close();
});

const DOCUMENTS = ['README.md', 'docs/dashboards.md', 'docs/warehouse.md', 'docs/commands.md', 'docs/operations.md'];
const MARKER = '<!-- the answer';

type Example = { file: string; request: string; answer: unknown };

/** Each marked answer of a document, with the request of the last shell block before it. */
function examples(file: string): Example[] {
  const text = readFileSync(file, 'utf8');
  const out: Example[] = [];
  for (let at = text.indexOf(MARKER); at >= 0; at = text.indexOf(MARKER, at + 1)) {
    const before = [...text.slice(0, at).matchAll(/```sh\n([\s\S]*?)```/g)].at(-1)?.[1];
    assert.ok(before, `${file}: a shell block comes before the answer`);
    const json = /```json\n([\s\S]*?)```/.exec(text.slice(at))![1];
    out.push({ file, request: requestOf(file, before), answer: JSON.parse(json) });
  }
  return out;
}

/** The path and query of a block's last curl: its quoted URL, and each --data-urlencode (with -G) added to it. */
function requestOf(file: string, block: string): string {
  const curl = block.slice(block.lastIndexOf('curl '));
  const url = /"(\$BASE[^"]+)"/.exec(curl)?.[1];
  assert.ok(url, `${file}: the curl line names "$BASE/…"`);
  const vars = Object.fromEntries([...block.matchAll(/^(\w+)=([\w-]+)/gm)].map((m) => [m[1], m[2]]));
  const resolved = url.replace('$BASE', '').replace(/\$(\w+)/g, (_, name: string) => {
    assert.ok(vars[name], `${file}: $${name} is set in the block`);
    return vars[name];
  });
  const added = [...curl.matchAll(/--data-urlencode "([^"=]+)=([^"]*)"/g)].map(
    ([, key, value]) => `${key}=${encodeURIComponent(value)}`,
  );
  return added.length ? `${resolved}${resolved.includes('?') ? '&' : '?'}${added.join('&')}` : resolved;
}

/** shown, with "…" and array tails as the header says, is actual. */
function matches(shown: unknown, actual: unknown, path: string): string | undefined {
  if (shown === '…') return undefined;
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return `${path}: not an array`;
    const open = shown.at(-1) === '…';
    const items = open ? shown.slice(0, -1) : shown;
    if (open ? actual.length < items.length : actual.length !== items.length)
      return `${path}: ${actual.length} items, the document shows ${items.length}${open ? ' and more' : ''}`;
    for (let i = 0; i < items.length; i++) {
      const wrong = matches(items[i], actual[i], `${path}[${i}]`);
      if (wrong) return wrong;
    }
    return undefined;
  }
  if (shown && typeof shown === 'object') {
    if (!actual || typeof actual !== 'object') return `${path}: not an object`;
    const keys = Object.keys(shown);
    const real = Object.keys(actual);
    if (keys.join() !== real.join()) return `${path}: keys ${real.join(', ')}, the document shows ${keys.join(', ')}`;
    for (const key of keys) {
      const wrong = matches(
        (shown as Record<string, unknown>)[key],
        (actual as Record<string, unknown>)[key],
        `${path}.${key}`,
      );
      if (wrong) return wrong;
    }
    return undefined;
  }
  return shown === actual
    ? undefined
    : `${path}: ${JSON.stringify(actual)}, the document shows ${JSON.stringify(shown)}`;
}

it('each answer a document shows is the one its request returns from a demo made today, or in 2028', async ({
  demos,
}) => {
  const all = DOCUMENTS.flatMap(examples);
  assert.ok(all.length >= 1, 'the documents show answers');
  for (const { day, t, token } of demos)
    for (const example of all) {
      const res = await t.fetch(example.request, bearer(token));
      const body = await res.json();
      assert.is(res.status, 200, `${day}: ${example.file}: ${example.request}: ${JSON.stringify(body)}`);
      const wrong = matches(example.answer, body, 'answer');
      assert.not.ok(wrong, `${day}: ${example.file}: ${example.request}\n${wrong}\n${JSON.stringify(body, null, 1)}`);
    }
});

it("the OpenAPI document's example answers that name their request (x-request) are that request's answer", async ({
  demos,
}) => {
  const documented = Object.values(
    openapi.paths['/v1/reports/{reportId}/data'].get.responses['200'].content['application/json'].examples,
  ) as { 'x-request'?: string; 'x-first-rows'?: boolean; value: Record<string, unknown> }[];
  const checked = documented.filter((example) => example['x-request']);
  assert.ok(checked.length >= 2, 'the data examples name their requests');
  for (const { day, t, token } of demos)
    for (const example of checked) {
      const res = await t.fetch(example['x-request']!, bearer(token));
      const body = await res.json();
      assert.is(res.status, 200, `${day}: ${JSON.stringify(body)}`);
      // When the demo was made is not the example's: its freshness is any. Some show the first rows only.
      const shown: Record<string, unknown> = { ...example.value, dataFreshness: '…' };
      if (example['x-first-rows']) shown.rows = [...(example.value.rows as unknown[]), '…'];
      const wrong = matches(shown, body, 'example');
      assert.not.ok(wrong, `${example['x-request']}\n${wrong}\n${JSON.stringify(body)}`);
    }
});

it('the dates the documents and the start banner read lie in the days every demo holds', () => {
  for (const file of [...DOCUMENTS, 'src/main.ts', 'spec/openapi.json']) {
    const text = readFileSync(file, 'utf8');
    for (const request of text.matchAll(/(date|compare)(From|To)[=": ]+"?(\d{4}-\d{2}-\d{2})/g)) {
      if (file === 'docs/warehouse.md') continue; // a recipe for the reader's own data, its dates computed
      const day = request[3];
      assert.ok(day >= FIXED.from && day <= FIXED.to, `${file}: ${request[0]} is outside ${FIXED.from}…${FIXED.to}`);
    }
  }
});

it.run();
