// CONTRIBUTING.md's "Adding a base metric": the built-in base metrics are declared once (src/dataModel.ts),
// and no file of src/ or sql/ writes all of them out but those the section names (the declaration, the demo, the
// synthetic numbers of `generate`), and the metrics' own definitions, whose ratios name their parts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BASE_METRICS } from '../src/report/metrics.ts';

const guide = readFileSync('CONTRIBUTING.md', 'utf8');
const section = guide.slice(guide.indexOf('## Adding a base metric'), guide.indexOf('## Tests'));
const listed = [...section.matchAll(/`([\w./*-]+\.(?:ts|sql|json|md))`/g)].map(([, path]) => path);

const files = (dir: string, ext: string) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith(ext) && !name.endsWith('queryTypes.ts'))
    .map((name) => join(dir, name));

test('only the files CONTRIBUTING.md names write out every base metric', () => {
  const writing = [...files('src', '.ts'), ...files('sql', '.sql')].filter((file) => {
    const text = readFileSync(file, 'utf8');
    return BASE_METRICS.every((metric) => new RegExp(`\\b${metric}\\b`).test(text));
  });
  const unnamed = writing.filter(
    // lattice.sql and schema.sql are written by `npm run sql:generate`; migrations are history.
    (file) =>
      !listed.includes(file) &&
      !['src/report/metrics.ts', 'sql/lattice/lattice.sql', 'sql/schema.sql'].includes(file) &&
      !file.startsWith('sql/migrations/'),
  );
  assert.equal(unnamed, []);
  assert.ok(section.split('\n').filter((line) => /^\d\. /.test(line)).length <= 3, 'at most three steps by hand');
});

test.run();
