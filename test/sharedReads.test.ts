// Requests that ask for the same report at once share one read of it (store/sharedReads.ts), and none of them takes
// a read begun before it arrived: each sees every write committed before it came, as a read of its own would.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../src/store/database.ts';
import { sharedReads } from '../src/store/sharedReads.ts';

/** A database whose reads answer the version they began at, each held until released. */
function fakeStore() {
  const store = {
    version: 0,
    begun: [] as { at: number; release: () => void; fail: (error: Error) => void }[],
    read: () =>
      new Promise<number>((resolve, reject) => {
        const at = store.version;
        store.begun.push({ at, release: () => resolve(at), fail: reject });
      }),
  };
  return store;
}

/** The message a promise was rejected with, or undefined. */
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: Error) => error.message,
  );
const tick = () => new Promise((resolve) => setImmediate(resolve));
const db = {} as Sql;

const it = suite('shared reads');

it('requests arriving together share one read', async () => {
  const shared = sharedReads<number>();
  const store = fakeStore();
  const first = shared(db, 'report', store.read);
  const [second, third] = [shared(db, 'report', store.read), shared(db, 'report', store.read)];
  await tick();
  assert.is(store.begun.length, 1, 'the later two wait for the next read rather than begin their own');
  store.begun[0].release();
  assert.is(await first, 0);
  await tick();
  assert.is(store.begun.length, 2, 'one read for both');
  store.begun[1].release();
  assert.equal(await Promise.all([second, third]), [0, 0]);
});

it('a write committed before a request arrives is seen by it, whatever read is under way', async () => {
  const shared = sharedReads<number>();
  const store = fakeStore();
  const before = shared(db, 'report', store.read);
  store.version = 1; // committed while the first read is under way
  const after = shared(db, 'report', store.read);
  store.begun[0].release();
  await tick();
  store.begun[1].release();
  assert.is(await before, 0);
  assert.is(await after, 1, 'a read begun before the request came would have missed the write');
});

it('a read once over is not reused', async () => {
  const shared = sharedReads<number>();
  const store = fakeStore();
  const first = shared(db, 'report', store.read);
  store.begun[0].release();
  await first;
  store.version = 2;
  const next = shared(db, 'report', store.read);
  store.begun[1].release();
  assert.is(await next, 2);
});

it('a failed read fails those who shared it; the next request reads afresh', async () => {
  const shared = sharedReads<number>();
  const store = fakeStore();
  const first = shared(db, 'report', store.read);
  store.begun[0].fail(new Error('connection lost'));
  assert.is(await rejection(first), 'connection lost');
  const next = shared(db, 'report', store.read);
  store.begun[1].release();
  assert.is(await next, 0);
  // A failure while others waited for the next read: they still get a read of their own.
  const during = shared(db, 'report', store.read);
  const waiting = shared(db, 'report', store.read);
  store.begun[2].fail(new Error('timeout'));
  assert.is(await rejection(during), 'timeout');
  await tick();
  store.begun[3].release();
  assert.is(await waiting, 0);
});

it('other keys and other databases are read apart', async () => {
  const shared = sharedReads<number>();
  const store = fakeStore();
  const reads = [
    shared(db, 'report', store.read),
    shared(db, 'another report', store.read),
    shared({} as Sql, 'report', store.read),
  ];
  assert.is(store.begun.length, 3);
  for (const read of store.begun) read.release();
  await Promise.all(reads);
});

it.run();
