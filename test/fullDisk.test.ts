// A start that cannot write its data folder (a full disk, a read-only file system) exits 2 with one line naming the
// cause, whatever step met it: PGlite's first files, or the migrations and the demo after them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorLine, storageProblem } from '../src/store/errors.ts';
import { runSync } from './support/server.ts';
import { skipped } from './support/skip.ts';

const it = suite('a data folder that cannot be written');

it('storage errors are named, from the operating system, PostgreSQL and PGlite alike', () => {
  assert.match(
    storageProblem(Object.assign(new Error('write failed'), { code: 'ENOSPC' }))!,
    /^no space left .*ENOSPC/,
  );
  assert.match(storageProblem({ code: '53100', message: 'could not extend file' })!, /no space left .*53100/);
  assert.match(storageProblem({ name: 'ErrnoError', errno: 51 })!, /no space left .*ENOSPC/);
  assert.match(storageProblem({ name: 'ErrnoError', errno: 69 })!, /read-only .*EROFS/);
  assert.is(storageProblem(new Error('something else')), undefined);
  assert.is(errorLine({ name: 'ErrnoError', errno: 51 }), 'ErrnoError 51');
});

/** A tmpfs of size, mounted for the test; undefined where this machine does not let the test mount one. */
function smallDisk(size: string, readOnly = false): { path: string; remove(): void } | undefined {
  const path = mkdtempSync(join(tmpdir(), 'readout-disk-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}${readOnly ? ',ro' : ''}`, 'tmpfs', path]);
  if (mounted.status !== 0) {
    rmSync(path, { recursive: true, force: true });
    return undefined;
  }
  return {
    path,
    remove: () => {
      spawnSync('umount', [path]);
      rmSync(path, { recursive: true, force: true });
    },
  };
}

for (const [size, where, readOnly] of [
  ['20m', 'its first files', false],
  ['64m', 'the migrations and the demo', false],
  ['10m', 'a read-only file system', true],
] as const) {
  const name = `${readOnly ? where : `a ${size} disk that fills up in ${where}`}: exit 2, one line naming the cause`;
  it(name, () => {
    const disk = smallDisk(size, readOnly);
    if (skipped(!disk, 'a data folder that cannot be written', name, 'needs to mount a tmpfs (root, CAP_SYS_ADMIN)'))
      return;
    try {
      const started = runSync('node', 'src/main.ts', [], { DATA_DIR: join(disk!.path, 'data'), PORT: '0' });
      assert.is(started.status, 2, started.stderr);
      const lines = started.stderr.trim().split('\n');
      assert.is(lines.length, 1, started.stderr);
      assert.match(lines[0], readOnly ? /^readout: .*EROFS/ : /^readout: .*no space left on the device/);
    } finally {
      disk!.remove();
    }
  });
}

it.run();
