// Private fields of dependencies we rely on, pinned to exact versions in package.json (the Node adapter's one-write
// answers read whatwg-node's Response body fields; the XLSX export drives xlsx-write-stream's internal streams; the
// embedded database replaces pglite-socket's queue loop). An upgrade that moves any of them fails here rather than
// in production.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import XLSXTransformStream from 'xlsx-write-stream';
import { Answer, toResponse } from '../src/http/answer.ts';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));

test('the pinned versions are exact', () => {
  assert.is(pkg.dependencies['@whatwg-node/server'], '0.11.0');
  assert.is(pkg.overrides['@whatwg-node/node-fetch'], '0.8.6');
  assert.is(pkg.dependencies['xlsx-write-stream'], '1.0.3');
  assert.is(pkg.dependencies['@electric-sql/pglite-socket'], '0.2.17');
  assert.is(pkg.dependencies['@electric-sql/pglite'], '0.5.14');
});

test('the Node README names is what CI proves: engines.node, its oldest run, and the newest LTS run', () => {
  // Node 20 reached its end of life in April 2026: the floor is a supported line.
  const floor = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(pkg.engines.node);
  assert.ok(floor, pkg.engines.node);
  assert.ok(Number(floor![1]) >= 22, pkg.engines.node);
  const ci = readFileSync('.ci/run', 'utf8');
  // .ci/run installs the floor engines.node names and runs everything on it, and the runtime's files on the newest LTS.
  assert.match(ci, /oldest=\$\(sed -nE .*package\.json\)/);
  const lts = /^lts=(\d+)$/m.exec(ci)?.[1];
  assert.ok(lts, '.ci/run names the LTS line it runs');
  const readme = readFileSync('README.md', 'utf8');
  const [major, minor] = [floor![1], floor![2]];
  assert.ok(readme.includes(`Node.js ${major}.${minor} or later`), 'README names the floor');
  assert.ok(
    readme.includes(`CI runs the suite on ${major}.${minor}, and the files that depend on the runtime on ${lts}`),
    'README names what CI runs',
  );
  assert.match(ci, /TEST_RUNTIME_NODE="\$lts_bin\/node"/, 'the runtime files run under the LTS');
});

test('an answer keeps its headers as the flat list node:http takes, and becomes the same Fetch Response', async () => {
  const answer = new Answer('{"a":1}', { status: 201, headers: { 'Content-Type': 'application/json', ETag: 'W/"x"' } });
  answer.headers.set('etag', 'W/"y"');
  assert.equal(answer.headers.list, ['content-type', 'application/json', 'etag', 'W/"y"']);
  const response = toResponse(answer);
  assert.is(response.status, 201);
  assert.is(response.headers.get('etag'), 'W/"y"');
  assert.equal(await response.json(), { a: 1 });
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
