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
/** The first line of a signature that goes on over several: a declaration, a method, or a `const` arrow function. */
const SIGNATURE =
  /^(\s*)(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\b|(?:const|let)\s+[\w$]+\s*(?::[^=]+)?=\s*(?:async\s*)?(?:<[^>]*>)?\(|[\w$]+\s*(?:<[^>]*>)?\()/;
/** The line that closes such a signature and opens the body: `) {`, `): Type {`, `) => {`. */
const SIGNATURE_END = /^\)(?:\s*:\s*[^{]+)?(?:\s*=>)?\s*\{$/;

/** Where each function in lines opens its body and the line its body ends on, its signature on one line or several. */
export function functionsOf(lines: string[]): { start: number; end: number }[] {
  const found: { start: number; end: number }[] = [];
  const endOf = (from: number, indent: number) =>
    lines.findIndex(
      (later, j) => j > from && later.trim().startsWith('}') && later.length - later.trimStart().length === indent,
    );
  lines.forEach((line, i) => {
    // A line that closes a signature opened above (`) => {`) was counted from that signature's first line.
    if (STATEMENT.test(line) || line.trimStart().startsWith(')')) return;
    const open = OPENS.exec(line);
    if (open) {
      found.push({ start: i, end: endOf(i, open[1].length) });
      return;
    }
    const signature = SIGNATURE.exec(line);
    if (!signature) return;
    const indent = signature[1].length;
    // The signature's lines are indented further; the first line back at its indent closes it, or it was no function.
    for (let j = i + 1; j < Math.min(lines.length, i + 30); j++) {
      const later = lines[j];
      if (later.trim() === '' || later.length - later.trimStart().length > indent) continue;
      if (later.length - later.trimStart().length === indent && SIGNATURE_END.test(later.trim()))
        found.push({ start: i, end: endOf(j, indent) });
      return;
    }
  });
  return found;
}

test('the function finder sees a signature on one line or several', () => {
  const body = (n: number) => Array.from({ length: n }, () => '  work();');
  const lines = [
    'export function exclusivePool(',
    '  size: number,',
    '  perOwner = size,',
    '): ExclusivePool {',
    ...body(3),
    '}',
    'async function seedReports(sql: Sql, org: string, ids: Ids) {',
    ...body(2),
    '}',
    'const named = async (',
    '  a: string,',
    ') => {',
    ...body(1),
    '};',
    'call(',
    '  a,',
    ');',
  ];
  assert.equal(functionsOf(lines), [
    { start: 0, end: 7 },
    { start: 8, end: 11 },
    { start: 12, end: 16 },
  ]);
});

test('no function in src/ is longer than 100 lines', () => {
  const long: string[] = [];
  for (const { file, lines } of sources)
    for (const { start, end } of functionsOf(lines))
      if (end - start + 1 > 100) long.push(`${file}:${start + 1} (${end - start + 1} lines)`);
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

test('the bench is a small harness and one file a part, none over 300 lines, each declaring its targets', () => {
  const parts = ['http', 'data', 'periods', 'currencies', 'dashboards', 'exports', 'fair', 'replicas', 'footprint'];
  for (const part of [...parts, 'import', 'growth'])
    assert.match(
      readFileSync(`scripts/bench/${part}.ts`, 'utf8'),
      /^export const TARGETS\b/m,
      `${part} declares TARGETS`,
    );
  const files = ['scripts/bench.ts', ...readdirSync('scripts/bench').map((name) => join('scripts/bench', name))];
  const long = files.filter((file) => readFileSync(file, 'utf8').trimEnd().split('\n').length > 300);
  assert.equal(long, []);
});

test.run();
