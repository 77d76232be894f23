// The source tree keeps the shape README's Layout describes: few files at the top of src/, each folder a concern, and
// no import cycle between modules (type imports included), so each folder can be read from its leaves up.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

const files = readdirSync('src', { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.ts'))
  .map((name) => join('src', name));

test('the top of src/ holds only the entry files, the pipeline, the configuration, the data model and what the executable carries', () => {
  assert.equal(files.filter((file) => dirname(file) === 'src').sort(), [
    'src/app.ts',
    'src/bundled.ts',
    'src/cli.ts',
    'src/config.ts',
    'src/dataModel.ts',
    'src/main.ts',
  ]);
});

/**
 * Which folder of src/ may import which: the layers, from the store up to the runtime adapters, point down only.
 * The leaves at the top of src/ (the data model, the configuration's types, what the executable carries) may be
 * imported from anywhere; the entry files (app.ts, main.ts, cli.ts) import anything and nothing imports them but main.ts.
 */
const MAY_IMPORT: Record<string, string[]> = {
  store: [],
  http: ['store'],
  auth: ['store', 'http'],
  billing: ['store', 'http'],
  report: ['store', 'http', 'auth', 'billing'],
  catalogue: ['store', 'report'],
  routes: ['store', 'http', 'auth', 'billing', 'report'],
  cli: ['store', 'http', 'auth', 'billing', 'report', 'catalogue'],
  serve: ['store', 'http', 'routes'],
};
const LEAVES = ['src/dataModel.ts', 'src/config.ts', 'src/bundled.ts'];

test('imports between folders point down: the store, http, the pipeline steps, reports, routes, then the adapters', () => {
  const climbing: string[] = [];
  for (const file of files) {
    const from = file.split('/')[1];
    if (!(from in MAY_IMPORT)) continue;
    for (const [, target] of readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gm)) {
      const path = normalize(join(dirname(file), target));
      if (!path.startsWith('src/') || LEAVES.includes(path)) continue;
      const to = path.split('/')[1];
      if (to !== from && !MAY_IMPORT[from].includes(to)) climbing.push(`${file} -> ${path}`);
    }
  }
  assert.equal(climbing, []);
  assert.ok(
    Object.keys(MAY_IMPORT).every((folder) => files.some((file) => file.startsWith(`src/${folder}/`))),
    'every folder of the table exists',
  );
});

test('no module imports itself through others', () => {
  const imports = new Map(
    files.map((file) => [
      file,
      [...readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gm)].map((m) =>
        normalize(join(dirname(file), m[1])),
      ),
    ]),
  );
  const cycles: string[] = [];
  const done = new Set<string>();
  const visit = (file: string, path: string[]) => {
    if (path.includes(file)) {
      cycles.push([...path.slice(path.indexOf(file)), file].join(' -> '));
      return;
    }
    if (done.has(file)) return;
    for (const next of imports.get(file) ?? []) visit(next, [...path, file]);
    done.add(file);
  };
  for (const file of files) visit(file, []);
  assert.equal(cycles, []);
});

test.run();
