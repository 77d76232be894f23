// npm test: runs the test files in a few worker processes at once and adds their uvu totals up.
//
// Each worker runs one file at a time, as uvu's own runner would, and asks for the next; the embedded database's
// WebAssembly is compiled once a worker rather than once a file, which was a third of the suite's CPU time. A file's
// output is printed whole when it ends, so files never interleave; the closing Total/Passed/Skipped lines keep uvu's
// form (.ci/run reads them). On PostgreSQL, the files that drive real traffic at a real server (SOLO) run after the
// others, one at a time, so no other test competes with them for the machine's cores; the files that never reach the
// database (EMBEDDED_PASS_ONLY) run on the embedded pass alone.
//   npm test                  every file
//   npm test -- quota http    files whose name contains one of the words
//   TEST_JOBS=1 npm test      one file at a time
//   TEST_RUNTIME_NODE=PATH    the files that depend on the runtime (RUNTIME below) run under that Node binary instead
//                             (.ci/run: the newest LTS in the PostgreSQL pass, the oldest supported in the embedded)
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import process from 'node:process';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

/** What a worker prints after a file's output: the file and the exit code uvu gave it. */
const DONE = '\u0000done ';

/** Files run again after their worker died of a V8 fatal error: once each. */
const retried = new Set<string>();

/**
 * The files whose outcome depends on the runtime that runs them: the HTTP server and its connections, TLS, the
 * executable, Bun and Deno beside Node, the event loop's turns, real CLI and server processes.
 */
const RUNTIME = new Set([
  'connections.test.ts',
  'executable.test.ts',
  'firstStart.test.ts',
  'heavyTurns.test.ts',
  'http.test.ts',
  'lifecycle.test.ts',
  'logLines.test.ts',
  'pipes.test.ts',
  'processes.test.ts',
  'refusedBody.test.ts',
  'runtimes.test.ts',
  'tickShape.test.ts',
  'tls.test.ts',
]);

/**
 * The files whose checks never reach the database the pass is on: a data folder of their own on a full disk, the docs
 * page in a browser, the metrics endpoint's counters. The PostgreSQL pass leaves them to the embedded one.
 */
const EMBEDDED_PASS_ONLY = new Set(['docsBrowser.test.ts', 'fullDisk.test.ts', 'prometheus.test.ts']);

if (process.argv[2] === '--worker') await worker();
else await main();

/** Runs the files named on standard input, one a line, each as uvu's runner would (uvu/run). */
async function worker() {
  (globalThis as { UVU_DEFER?: number }).UVU_DEFER = 1;
  const uvu = await import('uvu');
  const queue = (globalThis as unknown as { UVU_QUEUE: unknown[][] }).UVU_QUEUE;
  const ran: string[] = [];
  // A rejection no one hears fails the file it lands in (one a test listens for itself is that test's to judge),
  // rather than ending the worker and every file after it; the files run before are named, as one may have left it.
  process.on('unhandledRejection', (reason) => {
    if (process.listenerCount('unhandledRejection') > 1) return;
    const stack = reason instanceof Error ? (reason.stack ?? reason.message) : String(reason);
    process.stdout.write(`unhandled rejection in ${ran.at(-1)} (run before it here: ${ran.slice(0, -1)}):\n${stack}\n`);
    process.exitCode = 1;
  });
  for await (const file of createInterface({ input: process.stdin })) {
    ran.push(file);
    queue.length = 0;
    queue.push([file]);
    process.exitCode = 0;
    try {
      await import(pathToFileURL(resolve('test', file)).href);
      await uvu.exec();
    } catch (error) {
      process.stdout.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      process.exitCode = 1;
    }
    process.stdout.write(`${DONE}${file} ${process.exitCode}\n`);
  }
  process.exitCode = 0;
  // Nothing more to run: what a test left open (a timer, a socket) must not keep the worker alive.
  setTimeout(() => process.exit(0), 5000).unref();
}

type Outcome = { file: string; total: number; passed: number; skipped: number; ms: number; exit: number | null };

async function main() {
  // On PostgreSQL only: there they drive real traffic at a real server (on the embedded database those tests skip).
  const SOLO = new Set(
    process.env.TEST_DATABASE_URL ? ['traffic.test.ts', 'faults.test.ts', 'processes.test.ts', 'runtimes.test.ts'] : [],
  );
  /** The longest first, so the last one to start does not run alone at the end. */
  const LONGEST = [
    'exports.test.ts',
    'runtimes.test.ts',
    'faults.test.ts',
    'fx.test.ts',
    'reportData.test.ts',
    'quota.test.ts',
  ];
  const rank = (name: string) => (LONGEST.includes(name) ? LONGEST.indexOf(name) : LONGEST.length);

  const { positionals } = parseArgs({ allowPositionals: true, strict: true });
  const jobs = Math.max(1, Number(process.env.TEST_JOBS) || Math.min(availableParallelism() + 1, 4));
  const files = readdirSync('test')
    .filter((name) => name.endsWith('.test.ts'))
    .filter((name) => !(process.env.TEST_DATABASE_URL && EMBEDDED_PASS_ONLY.has(name)))
    .filter((name) => positionals.length === 0 || positionals.some((word) => name.includes(word)))
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));

  // The embedded databases' templates (test/support/database.ts), made by the first file that needs each, this run only.
  const templates = mkdtempSync(join(tmpdir(), 'readout-templates-'));
  process.env.READOUT_TEST_TEMPLATES = templates;
  process.on('exit', () => rmSync(templates, { recursive: true, force: true }));
  // On PostgreSQL, the test databases' templates of this run (test/support/database.ts), dropped at its end.
  const run = `r${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  process.env.READOUT_TEST_RUN = run;

  const startedAt = performance.now();
  const alternate = process.env.TEST_RUNTIME_NODE;
  const node = (f: string) => (alternate && RUNTIME.has(f) ? alternate : process.execPath);
  const outcomes: Outcome[] = [];
  try {
    outcomes.push(
      ...(await runAll(
        files.filter((f) => !SOLO.has(f)),
        jobs,
        node,
      )),
      ...(await runAll(
        files.filter((f) => SOLO.has(f)),
        1,
        node,
      )),
    );
  } finally {
    if (process.env.TEST_DATABASE_URL) {
      const { dropPostgresTemplates } = await import('../test/support/database.ts');
      await dropPostgresTemplates(run).catch((error) => console.log(`templates of run ${run} not dropped: ${error}`));
    }
  }

  let total = 0;
  let passed = 0;
  const broken: string[] = [];
  for (const o of outcomes) {
    // A file that crashed before uvu printed its totals counts as one failed test.
    if (Number.isNaN(o.total) || Number.isNaN(o.passed)) {
      total += 1;
      broken.push(`${o.file}: no totals printed (exit ${o.exit})`);
      continue;
    }
    total += o.total;
    passed += o.passed;
    if (o.exit !== 0 && o.total === o.passed) {
      total += 1;
      broken.push(`${o.file}: exit ${o.exit} after all its tests passed`);
    }
  }
  const slowest = [...outcomes].sort((a, b) => b.ms - a.ms).slice(0, 10);
  console.log(`\nslowest: ${slowest.map((o) => `${o.file} ${(o.ms / 1000).toFixed(1)} s`).join(', ')}`);
  if (alternate) console.log(`under ${alternate}: ${outcomes.filter((o) => RUNTIME.has(o.file)).length} files`);
  for (const line of broken) console.log(`FAIL ${line}`);
  // uvu's own closing lines, summed; "Skipped" counts the tests that said why they were skipped (test/support/skip.ts).
  const skipped = outcomes.reduce((n, o) => n + o.skipped, 0);
  console.log(
    `\n  Total:     ${total}\n  Passed:    ${passed}\n  Skipped:   ${skipped}\n  Duration:  ${(performance.now() - startedAt).toFixed(2)}ms\n`,
  );
  process.exitCode = passed === total ? 0 : 1;
}

/**
 * Runs the queue on `width` workers, each file under the Node binary node(file) names; a worker takes the files of its
 * own binary, and one that dies fails its file, and a new one takes the rest.
 */
async function runAll(queue: string[], width: number, node: (file: string) => string): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const lane = async () => {
    while (queue.length > 0) {
      const binary = node(queue[0]);
      const take = () => {
        const at = queue.findIndex((f) => node(f) === binary);
        return at < 0 ? undefined : queue.splice(at, 1)[0];
      };
      outcomes.push(...(await runWorker(take, (file) => queue.unshift(file), binary)));
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, queue.length) }, lane));
  return outcomes;
}

/** One worker under binary: it runs what take() gives until nothing is left; again() queues a file once more. */
function runWorker(take: () => string | undefined, again: (file: string) => void, binary: string): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const child = spawn(binary, ['--import', 'tsx', 'scripts/test.ts', '--worker'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: process.env,
  });
  let file = '';
  let output = '';
  let startedAt = 0;
  const next = () => {
    file = take() ?? '';
    output = '';
    startedAt = performance.now();
    if (file) child.stdin.write(`${file}\n`);
    else child.stdin.end();
  };
  const finish = (exit: number | null) => {
    const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
    const count = (label: string) =>
      Number(/^\s*(\d+)/.exec(plain.split(new RegExp(`^\\s*${label}:`, 'm')).at(-1) ?? '')?.[1] ?? NaN);
    const ms = performance.now() - startedAt;
    process.stdout.write(`\n=== ${file} (${(ms / 1000).toFixed(1)} s)\n${output.trimEnd()}\n`);
    outcomes.push({
      file,
      total: count('Total'),
      passed: count('Passed'),
      skipped: (plain.match(/^# skipped: /gm) ?? []).length,
      ms,
      exit,
    });
  };
  let pending = '';
  const read = (chunk: string) => {
    pending += chunk;
    for (let at = pending.indexOf(DONE); at !== -1; at = pending.indexOf(DONE)) {
      const end = pending.indexOf('\n', at);
      if (end === -1) return;
      output += pending.slice(0, at);
      finish(
        Number(
          pending
            .slice(at + DONE.length, end)
            .split(' ')
            .at(-1),
        ),
      );
      pending = pending.slice(end + 1);
      next();
    }
    // A marker cut between two chunks waits for the rest of its line.
    const cut = pending.indexOf(DONE[0]);
    output += cut === -1 ? pending : pending.slice(0, cut);
    pending = cut === -1 ? '' : pending.slice(cut);
  };
  child.stdout.setEncoding('utf8').on('data', read);
  child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  next();
  return new Promise((resolve) => {
    child.on('close', (exit) => {
      // A V8 fatal error (its own internal check failing, seen once in wasm code bookkeeping on Node 24.21 under
      // PGlite) is the runtime's fault, not the test's: the file runs once more in a new worker, and says so. A
      // second crash, or any other death, fails the file.
      if (file && /^# Fatal error in /m.test(output) && !retried.has(file)) {
        retried.add(file);
        process.stdout.write(
          `\n=== ${file}: the runtime crashed (V8 fatal error, below); run again once\n${output.trimEnd()}\n`,
        );
        again(file);
      } else if (file) finish(exit ?? 1);
      resolve(outcomes);
    });
  });
}
