// The source tree keeps the shape README's Layout describes: few files at the top of src/, each folder a concern, and
// no import cycle between modules (type imports included), so each folder can be read from its leaves up.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

const files = readdirSync('src', { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.ts'))
  .map((name) => join('src', name));

test('the top of src/ holds only the entry files, the pipeline, the configuration and the data model', () => {
  assert.equal(files.filter((file) => dirname(file) === 'src').sort(), ['src/app.ts', 'src/cli.ts', 'src/config.ts', 'src/dataModel.ts', 'src/main.ts']);
});

test('no module imports itself through others', () => {
  const imports = new Map(
    files.map((file) => [
      file,
      [...readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gm)].map((m) => normalize(join(dirname(file), m[1]))),
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
