// The bench's harness (npm run bench): its flags, the processes it starts and stops, and how it prints. Every part
// (scripts/bench/*.ts) declares its targets in a table of its own (TARGETS) and returns what it measured.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';

const flags = (() => {
  try {
    return parseArgs({
      options: {
        scale: { type: 'string', default: '1' },
        duration: { type: 'string', default: '10' },
        rounds: { type: 'string', default: '5' },
        only: { type: 'string', default: '' },
        targets: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (error) {
    console.error(`bench: ${(error as Error).message}`);
    process.exit(2);
  }
})();
const number = (name: keyof typeof flags, value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) {
    console.error(`bench: --${name} must be a positive number, got "${value}"`);
    process.exit(2);
  }
  return n;
};
export const scale = number('scale', flags.scale);
export const duration = number('duration', flags.duration);
// The HTTP scenarios run this many times, interleaved, and each ratio is the median of the rounds' own ratios:
// this machine's throughput drifts by tens of percent within minutes.
export const rounds = Math.max(1, Math.round(number('rounds', flags.rounds)));
// --only exports (or http, data): one part of the run, to iterate on it; the targets of the parts not run are skipped.
export const only = flags.only;
/** --targets: print every part's declared targets and exit. */
export const listTargets = flags.targets;
export const PARTS = [
  'http',
  'data',
  'periods',
  'currencies',
  'dashboards',
  'declared',
  'exports',
  'fair',
  'replicas',
  'footprint',
  'import',
  'growth',
] as const;
export type Part = (typeof PARTS)[number];
export const runs = (part: Part) => only === '' || only.split(',').includes(part);
export const embedded = scale < 1 || !process.env.DATABASE_URL;
if (!embedded && !process.env.DATABASE_URL && !listTargets)
  throw new Error('set DATABASE_URL, or run --scale 0.1 on the embedded database');
export const cores = Number(spawnSync('nproc', { encoding: 'utf8' }).stdout.trim() || '1');
export const pin = (core: number, cmd: string[]) => (cores > 1 ? ['taskset', '-c', String(core), ...cmd] : cmd);
export const log = (line: string) => process.stderr.write(`bench: ${line}\n`);
/** A number as the tables write it: thousands separated, d decimals. */
export const f = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

// --- targets ---------------------------------------------------------------------------------------------------

/** A target as a part declares it: what it says, and the bound the part compares its measure with. */
export type Target = { name: string; bound: number };
/** A target's outcome: its name, what was measured, and whether it was met. */
export type Met = [string, string, boolean];
/** Row of the scenarios' table: a load run, or a download's figures. */
export type Row = { rps: number; p50: number; p99: number; peakRss?: number };
/** What a part gives back: rows of the scenarios' table, lines after it, and its targets' outcomes. */
export type PartResult = { rows: [string, Row][]; after: string[]; targets: Met[] };
export const noResult = (): PartResult => ({ rows: [], after: [], targets: [] });

/** Every part's declared targets, as one table: `npm run bench -- --targets`. */
export function declaredTable(tables: Record<string, Record<string, Target>>): string[] {
  return [
    '| part | target | bound |',
    '|---|---|---:|',
    ...Object.entries(tables).flatMap(([part, targets]) =>
      Object.values(targets).map((t) => `| ${part} | ${t.name} | ${Number(t.bound.toFixed(3))} |`),
    ),
  ];
}

export const tableHead = ['| scenario | req/s | p50 ms | p99 ms | peak RSS MB |', '|---|---:|---:|---:|---:|'];
export const targetTable = (targets: Met[]) => [
  '',
  '| target | measured | |',
  '|---|---:|---|',
  ...targets.map(([name, measured, met]) => `| ${name} | ${measured} | ${met ? 'met' : 'missed'} |`),
];
export const machine = (database: string) =>
  `Machine: ${cores} cores, ${database}, scale ${scale}, ${duration} s a scenario, server on core 0, load on core 1${only ? `; only ${only}` : ''}.`;

// --- processes -------------------------------------------------------------------------------------------------

export type Proc = { child: ChildProcess; url: string; pid: number };

export const logDir = mkdtempSync(join(tmpdir(), 'readout-bench-logs-'));
// A full run writes gigabytes of request log lines: removed at exit, unless the run failed or a request under load
// did, when they say why; BENCH_KEEP_LOGS=1 keeps them in any case (each request's server-side ms is in its line).
export const keepAnyway = process.env.BENCH_KEEP_LOGS === '1';
export const logs = { keep: true };
process.on('exit', () =>
  logs.keep ? log(`server output kept in ${logDir}`) : rmSync(logDir, { recursive: true, force: true }),
);
/** Every server the run started, in order: stopped at the end. */
export const processes: Proc[] = [];

/** Every server started and not yet gone: stopped on the way out, however the bench ends. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGTERM');
});
// Interrupted (Ctrl-C, a timeout's SIGTERM), the bench exits through its exit handlers rather than dying with its
// servers left running.
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)
  process.on(signal, () => process.exit(code));

/**
 * Starts a server with its output going to a file, not a pipe: reading every request's log line would put the
 * bench's own work on the cores it measures. The URL is read from the file's "listening" line.
 */
export async function start(cmd: string[], env: Record<string, string | undefined>): Promise<Proc> {
  const logFile = join(logDir, `${processes.length}-${cmd.at(-1)!.replace(/\W+/g, '-')}.log`);
  const fd = openSync(logFile, 'w');
  const childEnv = { ...process.env, ...env };
  for (const [key, value] of Object.entries(childEnv)) if (value === undefined) delete childEnv[key];
  const child = spawn(cmd[0], cmd.slice(1), { env: childEnv, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  running.add(child);
  let exited: number | null | undefined;
  child.on('exit', (code) => {
    exited = code;
    running.delete(child);
  });
  for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    const out = readFileSync(logFile, 'utf8');
    const match = /"msg":"listening","url":"([^"]+)"/.exec(out);
    if (match) return { child, url: match[1], pid: child.pid! };
    if (exited !== undefined) throw new Error(`${cmd.join(' ')} exited ${exited}: ${out.slice(-2000)}`);
  }
  child.kill('SIGTERM');
  throw new Error(`${cmd.join(' ')} did not say it was listening within 60 s; its output is in ${logFile}`);
}

/**
 * The server's command exactly as `npm start` runs it (package.json), flags and all, without the shell's `exec`;
 * BENCH_START="node ..." tries another.
 */
export const serverCommand = () =>
  (process.env.BENCH_START ?? (JSON.parse(readFileSync('package.json', 'utf8')).scripts.start as string))
    .split(/\s+/)
    .filter((word, i) => i > 0 || word !== 'exec');
