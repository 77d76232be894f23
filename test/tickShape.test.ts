// serve/tickShape.ts: with it loaded, process.nextTick's property caches stay monomorphic through full collections
// that find no tick alive; without it they turn megamorphic, and every later tick adds its properties in V8's runtime.
// Read from V8's own feedback (--allow-natives-syntax), in a child process of its own.
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { temporaryDir } from './support/server.ts';
import { skipped } from './support/skip.ts';

const it = suite('tick shape');
const root = join(import.meta.dirname, '..');

/** nextTick's literal caches after ticks, ten idle full collections and more ticks: MONOMORPHIC or MEGAMORPHIC each. */
function cachesAfterIdleCollections(keep: boolean): string[] {
  const script = [
    keep ? `await import(${JSON.stringify(join(root, 'src/serve/tickShape.ts'))});` : '',
    'const tick = () => new Promise((resolve) => process.nextTick(resolve));',
    'for (let i = 0; i < 50; i++) await tick();',
    'for (let i = 0; i < 10; i++) gc();',
    'for (let i = 0; i < 50; i++) await tick();',
    '%DebugPrint(process.nextTick);',
  ].join('\n');
  // V8 prints with C stdio, which loses what a full non-blocking pipe refuses: the output goes to a file.
  const dir = temporaryDir();
  try {
    const out = join(dir.path, 'debug-print.txt');
    const fd = openSync(out, 'w');
    const result = spawnSync(
      process.execPath,
      ['--allow-natives-syntax', '--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: root, encoding: 'utf8', stdio: ['ignore', fd, 'pipe'], timeout: 60_000 },
    );
    closeSync(fd);
    assert.is(result.status, 0, result.stderr);
    return [...readFileSync(out, 'utf8').matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1]);
  } finally {
    dir.remove();
  }
}

it('nextTick keeps its caches through idle collections as far as the kept object reaches', async () => {
  const test = 'caches through idle collections';
  const { tickShape } = await import('../src/serve/tickShape.ts');
  if (skipped(!tickShape, 'tick shape', test, `this Node (${process.version}) builds ticks in a form not known here`))
    return;
  const without = cachesAfterIdleCollections(false);
  if (skipped(without.length === 0, 'tick shape', test, `this Node (${process.version}) prints no feedback`)) return;
  if (
    skipped(
      !without.includes('MEGAMORPHIC'),
      'tick shape',
      test,
      `this Node (${process.version}) keeps the tick's classes through idle collections on its own`,
    )
  )
    return;
  const lost = cachesAfterIdleCollections(true).filter((state) => state !== 'MONOMORPHIC').length;
  // Node 20 (the whole literal): none lost. Node 22 and later: the two after the context frame only.
  if (tickShape!.whole) assert.is(lost, 0);
  else assert.ok(lost < without.filter((state) => state === 'MEGAMORPHIC').length, `${lost} lost with the object kept`);
});

it('the server loads it before any other module', () => {
  const firstImport = /^import\s+(?:[^'"]*from\s+)?'([^']+)'/m.exec(readFileSync(join(root, 'src/main.ts'), 'utf8'));
  assert.is(firstImport?.[1], './serve/tickShape.ts');
});

it.run();
