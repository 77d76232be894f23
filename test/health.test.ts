// /v1/health is liveness (docs/decisions.md §8): on the embedded database, a check queued behind a long write (an
// import) says busy, not down, so the answer stays 200 while the process serves; a check that fails says 503. On
// PostgreSQL a check with no answer in 2 s is 503.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { health } from '../src/routes/health.ts';
import type { Queryable } from '../src/store/queries.ts';

const it = suite('health');

/** A database whose answers the test gives: each check waits until the test settles it. */
function database() {
  const pending: { resolve(rows: unknown[]): void; reject(error: Error): void }[] = [];
  const sql = {
    unsafe: () => new Promise((resolve, reject) => pending.push({ resolve, reject })),
  } as unknown as Queryable;
  return { sql, pending };
}

const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

it('embedded: a check stuck behind a long write answers 200 at once from the last check, and 503 once one fails', async () => {
  const db = database();
  let now = 0;
  const check = health(db.sql, () => now, { busyIsUp: true });
  const first = check();
  await tick();
  db.pending[0].resolve([{}]);
  assert.is((await first).status, 200);
  // An import holds the database: the next check is queued, and never answered while the test waits.
  now += 1000;
  const began = performance.now();
  assert.is((await check()).status, 200, 'busy is not down');
  assert.ok(performance.now() - began < 2000, 'answered before the 2 s a PostgreSQL check may take');
  assert.is(db.pending.length, 2, 'the question was asked');
  now += 1000;
  assert.is((await check()).status, 200);
  assert.is(db.pending.length, 2, 'one question at a time: a queued check is not asked again');
  // The write ends and the database answers the question with an error: down.
  db.pending[1].reject(new Error('the database is gone'));
  await tick();
  now += 1000;
  const after = check();
  await tick();
  db.pending[2]?.reject(new Error('the database is gone'));
  assert.is((await after).status, 503);
});

it('PostgreSQL: a check with no answer in 2 s is 503', async () => {
  const db = database();
  let now = 0;
  const check = health(db.sql, () => now, { busyIsUp: false });
  const first = check();
  await tick();
  db.pending[0].resolve([{}]);
  assert.is((await first).status, 200);
  now += 1000;
  assert.is((await check()).status, 503);
});

it.run();
