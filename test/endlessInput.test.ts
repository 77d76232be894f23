// Every operator input has an end (docs/decisions.md §10-§12): `apply`, `fx import` and `import` fed /dev/zero or an
// endless pipe stop reading at their documented limit and refuse with one line naming it and exit 2, with memory
// bounded: the process's peak stays within a ceiling above what a plain command of the same kind takes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { freshDatabaseUrl, onPostgres } from './support/database.ts';
import { command, temporaryDir } from './support/server.ts';

const it = suite('endless input');
/** What a refused input may add to a command's peak memory. */
const CEILING_MB = 100;
/** An input that is still being read after this long has no end. */
const BOUND_MS = 60_000;

type Run = { code: number | null; stderr: string; peakMb: number; ms: number };

/** A command line run to its end, its peak resident memory sampled from /proc; stdin: written again and again. */
function run(env: NodeJS.ProcessEnv, argv: string[], stdin?: { chunk: string }): Promise<Run> {
  const [cmd, base] = command('node', 'src/cli.ts');
  const started = Date.now();
  const child = spawn(cmd, [...base, ...argv], { env, stdio: [stdin ? 'pipe' : 'ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  let peakMb = 0;
  const sample = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
      peakMb = Math.max(peakMb, kb / 1024);
    } catch {
      // gone already
    }
  }, 10);
  const killer = setTimeout(() => child.kill('SIGKILL'), BOUND_MS);
  if (stdin) {
    const chunk = Buffer.from(stdin.chunk.repeat(Math.ceil(65_536 / stdin.chunk.length)));
    const pump = () => {
      while (child.stdin!.writable && child.stdin!.write(chunk));
      if (child.stdin!.writable) child.stdin!.once('drain', pump);
    };
    child.stdin!.on('error', () => {}); // the command stopped reading: EPIPE
    pump();
  }
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      clearInterval(sample);
      clearTimeout(killer);
      resolve({ code, stderr, peakMb, ms: Date.now() - started });
    });
  });
}

it('apply, fx import and import refuse /dev/zero and an endless pipe at their limit, memory bounded', async () => {
  const dir = temporaryDir();
  const fresh = onPostgres ? await freshDatabaseUrl() : undefined;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...(fresh ? { DATABASE_URL: fresh.url } : { DATA_DIR: dir.path }),
    DEMO: 'off',
  };
  delete env.FORCE_COLOR;
  try {
    const [cmd, base] = command('node', 'src/cli.ts');
    const created = spawnSync(cmd, [...base, 'org', 'create', '--name', 'Acme', '--json'], { env, encoding: 'utf8' });
    assert.is(created.status, 0, created.stderr);
    const org = JSON.parse(created.stdout).organizationId;
    // A plain command of the same kind: what opening the database and reading an empty file take.
    const plain = await run(env, ['fx', 'import', '--file', '/dev/null']);
    assert.is(plain.code, 2, plain.stderr);
    const cases: { argv: string[]; stdin?: { chunk: string }; refusal: RegExp }[] = [
      { argv: ['apply', '--org', org, '--file', '/dev/zero'], refusal: /longer than the 1 MB apply reads/ },
      { argv: ['apply', '--org', org, '--file', '-'], stdin: { chunk: 'a: b\n' }, refusal: /1 MB apply reads/ },
      { argv: ['fx', 'import', '--file', '/dev/zero'], refusal: /longer than the 16 MB fx import reads/ },
      {
        argv: ['fx', 'import', '--file', '-'],
        stdin: { chunk: 'date,currency,usd_per_unit\n2026-01-05,EUR,1.1\n' },
        refusal: /standard input is longer than the 16 MB fx import reads/,
      },
      { argv: ['import', '--org', org, '--file', '/dev/zero'], refusal: /a record is longer than 1048576 bytes/ },
      {
        argv: ['import', '--org', org, '--file', '-'],
        stdin: { chunk: 'date,platform,account_id' },
        refusal: /a record is longer than 1048576 bytes/,
      },
    ];
    for (const c of cases) {
      const out = await run(env, c.argv, c.stdin);
      const name = `${c.argv.join(' ')}${c.stdin ? ' < endless pipe' : ''}`;
      assert.ok(out.ms < BOUND_MS, `${name}: still reading after ${out.ms} ms`);
      assert.is(out.code, 2, `${name}: exit ${out.code}: ${out.stderr}`);
      // The database line, then the one line of the refusal.
      assert.is(out.stderr.trim().split('\n').length, 2, `${name}: one line: ${out.stderr}`);
      assert.match(out.stderr, /^readout: database: /);
      assert.match(out.stderr, c.refusal, name);
      assert.ok(
        out.peakMb < plain.peakMb + CEILING_MB,
        `${name}: peak ${out.peakMb.toFixed(0)} MB against ${plain.peakMb.toFixed(0)} MB for a plain command`,
      );
    }
  } finally {
    dir.remove();
    await fresh?.drop();
  }
});

it.run();
