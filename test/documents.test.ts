// The documents people read: README.md short enough to read to the end, with a table of contents; every link in it
// and in the documents it leads to names a file of the repository, and every #anchor a heading there.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

const it = suite('documents');

const DOCUMENTS = [
  'README.md',
  'CONTRIBUTING.md',
  'BENCHMARKS.md',
  'RELIABILITY.md',
  'docs/operations.md',
  'docs/commands.md',
  'docs/warehouse.md',
  'docs/dashboards.md',
  'docs/decisions.md',
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
const anchors = (path: string) =>
  new Set([...readFileSync(path, 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map(([, text]) => slug(text)));

it('README.md is at most 250 lines, with a table of contents of its sections', () => {
  const readme = readFileSync('README.md', 'utf8');
  const lines = readme.trimEnd().split('\n').length;
  assert.ok(lines <= 250, `${lines} lines`);
  const sections = [...readme.matchAll(/^## (.+)$/gm)].map(([, title]) => title);
  for (const title of sections)
    assert.ok(readme.includes(`- [${title}](#${slug(title)})`), `the contents list ${title}`);
});

it('the tools a shell recipe runs that a fresh machine lacks (jq, psql) are named before their first use', () => {
  for (const path of DOCUMENTS) {
    const text = readFileSync(path, 'utf8');
    for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
      const used = new Set(
        [...block[1].matchAll(/(?:^|\$\(|\| |&& |; )\s*([a-z][a-z0-9-]*)(?= )/gm)].map(([, word]) => word),
      );
      const before = text.slice(0, block.index);
      for (const tool of ['jq', 'psql']) {
        if (used.has(tool)) assert.ok(before.includes(`\`${tool}\``), `${path}: ${tool} is used before it is named`);
      }
    }
  }
});

it('every link between the documents names a file, and every anchor a heading', () => {
  const broken: string[] = [];
  for (const document of DOCUMENTS) {
    assert.ok(existsSync(document), document);
    const text = readFileSync(document, 'utf8');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [file, anchor] = target.split('#');
      const path = file ? normalize(join(dirname(document), file)) : document;
      if (!existsSync(path)) broken.push(`${document}: ${target}`);
      else if (anchor && path.endsWith('.md') && !anchors(path).has(anchor))
        broken.push(`${document}: ${target} (no such heading)`);
    }
  }
  assert.equal(broken, []);
});

it.run();
