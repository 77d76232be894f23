// docs/decisions.md is the project's own decision record: code, SQL, tests and documents cite its sections, never a
// file outside the repository, and every section they cite exists.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const it = suite('decision record');

const record = readFileSync('docs/decisions.md', 'utf8');
const sections = new Set([...record.matchAll(/^## (\d+)\. \S/gm)].map(([, n]) => Number(n)));

/** Every file under the folders the project's text lives in. */
function files(...roots: string[]): string[] {
  return roots.flatMap((root) =>
    statSync(root).isDirectory()
      ? readdirSync(root).flatMap((name) => (name === 'node_modules' ? [] : files(join(root, name))))
      : [root],
  );
}
const sources = files(
  'src',
  'sql',
  'test',
  'scripts',
  'spec',
  'docs',
  '.ci',
  'README.md',
  'BENCHMARKS.md',
  'RELIABILITY.md',
).filter((path) => /\.(ts|sql|json|md)$|^\.ci\//.test(path) && path !== 'sql/schema.sql');
/** Migrations written before docs/decisions.md: they may cite its sections by their old name. */
it('has its sections numbered from 1 without a gap', () => {
  assert.ok(sections.size >= 13, `${sections.size} sections`);
  assert.equal(
    [...sections],
    Array.from({ length: sections.size }, (_, i) => i + 1),
  );
});

it('is cited, and never a document outside the repository', () => {
  const outside: string[] = [];
  let cited = 0;
  for (const path of sources) {
    if (path === 'test/decisions.test.ts') continue;
    const text = readFileSync(path, 'utf8');
    cited += (text.match(/docs\/decisions\.md §/g) ?? []).length;
    if (path === 'docs/decisions.md') continue;
    for (const match of text.matchAll(/\bDECISIONS(?:\.md)?\b|\b[Ss]pec §|\.\.\/shared\//g))
      outside.push(`${path}: ${match[0]}`);
  }
  assert.equal(outside, []);
  assert.ok(cited > 50, `${cited} citations`);
});

it('every section cited exists', () => {
  const missing: string[] = [];
  for (const path of sources) {
    if (path === 'test/decisions.test.ts') continue;
    const text = readFileSync(path, 'utf8');
    for (const [, list] of text.matchAll(/docs\/decisions\.md (§\d+(?:(?:, | and | or )§\d+)*)/g)) {
      for (const [, n] of list.matchAll(/§(\d+)/g)) if (!sections.has(Number(n))) missing.push(`${path}: §${n}`);
    }
  }
  assert.equal(missing, []);
});

it.run();
