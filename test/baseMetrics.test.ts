// CONTRIBUTING.md's "Adding a base metric" lists every file that writes out the base metrics: a file of src/ or
// sql/queries/ that names each of them is in the list, by its path or by a pattern of it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BASE_METRICS } from '../src/report/metrics.ts';

const guide = readFileSync('CONTRIBUTING.md', 'utf8');
const section = guide.slice(guide.indexOf('## Adding a base metric'), guide.indexOf('## Commands'));

/** The paths and patterns the section names in backquotes, a pattern's `*` standing for any characters. */
const listed = [...section.matchAll(/`([\w./*-]+\.(?:ts|sql|json|md))`/g)].map(([, path]) => path);
const covers = (file: string) =>
  listed.some((path) => {
    const pattern = new RegExp(`(^|/)${path.replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}$`);
    return pattern.test(file);
  });

const files = (dir: string, ext: string) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith(ext) && !name.endsWith('queryTypes.ts'))
    .map((name) => join(dir, name));

test("every file that writes out each base metric is in CONTRIBUTING.md's list", () => {
  const writing = [...files('src', '.ts'), ...files('sql/queries', '.sql')].filter((file) => {
    const text = readFileSync(file, 'utf8');
    return BASE_METRICS.every((metric) => new RegExp(`\\b${metric}\\b`).test(text));
  });
  assert.ok(writing.length > 10, `${writing.length} files`);
  assert.equal(
    writing.filter((file) => !covers(file)),
    [],
  );
});

test.run();
