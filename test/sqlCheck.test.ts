// npm run sql:check names every query file PostgreSQL cannot prepare, with its message, and exits 2.
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runSync, temporaryDir } from './support/server.ts';

const it = suite('sql:check');

it("a broken query is named with its file and PostgreSQL's message; exit 2", () => {
  const dir = temporaryDir();
  try {
    copyFileSync('sql/queries/list-plans.sql', join(dir.path, 'list-plans.sql'));
    writeFileSync(join(dir.path, 'list-nothing.sql'), 'select nme from plans where code = $1');
    const out = runSync('node', 'scripts/sqlCheck.ts', ['--dir', dir.path]);
    assert.is(out.status, 2, out.stderr);
    assert.match(
      out.stderr,
      new RegExp(`sql:check: ${join(dir.path, 'list-nothing.sql')}: embedded: column "nme" does not exist`),
    );
    assert.not.match(out.stderr, /list-plans/);
    assert.match(out.stdout, /1 of 2 queries prepare/);
  } finally {
    dir.remove();
  }
});

it.run();
