// How the code reads (CONTRIBUTING.md, "How the code reads"): short lines and functions, steps that pass values rather
// than a bag on the context, no other library's private fields, and a BENCHMARKS.md that stays a reference.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** src/'s files but the generated ones. */
const files = readdirSync('src', { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.ts') && !name.endsWith('queryTypes.ts'))
  .map((name) => join('src', name));
const sources = files.map((file) => ({ file, lines: readFileSync(file, 'utf8').split('\n') }));

test('no line in src/ passes 120 characters', () => {
  const long = sources.flatMap(({ file, lines }) =>
    lines.flatMap((line, i) => (line.length > 120 ? [`${file}:${i + 1} (${line.length})`] : [])),
  );
  assert.equal(long, []);
});

/** A line that opens a function's body: a declaration, a method, or an arrow function with a block. */
const OPENS =
  /^(\s*)(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\b.*|[\w$]+\s*(?:<[^>]*>)?\(.*\)(?:\s*:\s*[^={]+)?|.*=>)\s*\{$/;
const STATEMENT = /^\s*(?:if|for|while|switch|catch|else|try|do)\b/;

test('no function in src/ is longer than 100 lines', () => {
  const long: string[] = [];
  for (const { file, lines } of sources) {
    lines.forEach((line, i) => {
      const open = OPENS.exec(line);
      if (!open || STATEMENT.test(line)) return;
      const indent = open[1].length;
      const end = lines.findIndex(
        (later, j) => j > i && later.trim().startsWith('}') && later.length - later.trimStart().length === indent,
      );
      if (end - i + 1 > 100) long.push(`${file}:${i + 1} (${end - i + 1} lines)`);
    });
  }
  assert.equal(long, []);
});

test('steps pass values: the context holds no unknown stash, and nothing asserts a field of it is set', () => {
  const context = readFileSync('src/http/context.ts', 'utf8');
  assert.not.match(context, /:\s*unknown\b/);
  const asserted = sources.flatMap(({ file, lines }) =>
    lines.flatMap((line, i) => (/\bctx\.\w+!/.test(line) ? [`${file}:${i + 1}`] : [])),
  );
  assert.equal(asserted, []);
});

test("no module reads @whatwg-node/server's private fields", () => {
  const reads = sources.filter(({ lines }) => lines.some((line) => /\bbody(Init|Type)\b/.test(line)));
  assert.equal(
    reads.map(({ file }) => file),
    [],
  );
});

test('BENCHMARKS.md is a reference of at most 250 lines', () => {
  const lines = readFileSync('BENCHMARKS.md', 'utf8').trimEnd().split('\n').length;
  assert.ok(lines <= 250, `${lines} lines`);
});

test.run();
