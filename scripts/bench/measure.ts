// How the bench measures (npm run bench): a server's memory and CPU, autocannon's load from the other core, a loop of
// the same work at a concurrency (the SQL floors), and whole downloads by curl.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { duration, log, pin } from './harness.ts';

export const rssMb = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
  } catch {
    return 0;
  }
};

/** Samples a process's RSS while the work runs; returns the work's result and the peak. */
export async function peakRss<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = rssMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 25);
  try {
    const result = await work();
    return { result, peak: Math.max(peak, rssMb(pid)) };
  } finally {
    clearInterval(timer);
  }
}

/** cpuPerRequest: the server's CPU time (every thread, user and system) over the run, in µs a request. */
export type Load = {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  unexpected: number;
  peakRss: number;
  cpuPerRequest: number;
};

/** A process's CPU time so far, user and system, all its threads, in clock ticks (proc(5): utime, stime). */
const cpuTicks = (pid: number) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return Number.NaN;
  }
};
/** proc(5)'s clock ticks a second (USER_HZ): 100 on Linux wherever the bench runs. */
const TICKS_PER_SECOND = 100;

/** autocannon in its own process on the other core. */
export async function load(
  url: string,
  pid: number,
  connections: number,
  headers: Record<string, string> = {},
  seconds = duration,
  expect = 200,
): Promise<Load> {
  // autocannon gives up on a request after 10 s by default; waiting past the server's own 30-s deadline instead
  // measures a slow answer as slow, and a request the server cuts off counts by its status.
  const args = [
    'node',
    'node_modules/autocannon/autocannon.js',
    '--json',
    '-c',
    String(connections),
    '-d',
    String(seconds),
    '-t',
    '40',
  ];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  args.push(url);
  const ticksBefore = cpuTicks(pid);
  const { result, peak } = await peakRss(
    pid,
    () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(pin(1, args)[0], pin(1, args).slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (c) => (out += c));
        child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`autocannon exited ${code}`))));
      }),
  );
  const r = JSON.parse(result);
  // Answers with any status other than the one expected count as errors (a 304 run expects 304, the rest 200).
  const statuses = (r.statusCodeStats ?? {}) as Record<string, { count: number }>;
  const unexpected = Object.entries(statuses).reduce(
    (n, [code, { count }]) => n + (code === String(expect) ? 0 : count),
    0,
  );
  // A scenario in which no request finished measured nothing: its zero latencies would read as fast, so it counts as
  // failed.
  const unfinished = r.requests.total === 0 ? 1 : 0;
  const measured = {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts + unfinished,
    unexpected,
    peakRss: peak,
    cpuPerRequest: (((cpuTicks(pid) - ticksBefore) / TICKS_PER_SECOND) * 1e6) / Math.max(r.requests.total, 1),
  };
  loads.push(measured);
  return measured;
}

/** Every load run, warm-ups included: any error in any of them fails the run. */
export const loads: Load[] = [];

/** A figure from a run where any request failed measures the failures, not the service: its target is missed. */
export const clean = (...runs: Load[]) => runs.every((r) => r.errors + r.unexpected === 0);
export const errorNote = (...runs: Load[]) => (clean(...runs) ? '' : ' (from a run with errors)');

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
/** The run of median throughput, with its own latencies. */
export const medianRun = <T extends Load>(all: T[]) =>
  [...all].sort((a, b) => a.rps - b.rps)[Math.floor((all.length - 1) / 2)];

/** The same work as a closure, at a concurrency, for a while: the SQL floors. */
export async function loop(concurrency: number, seconds: number, work: () => Promise<unknown>) {
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        await work();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99) };
}

const hasCurl = spawnSync('curl', ['--version']).status === 0;

/**
 * One download, timed, with the server's peak RSS; a download that fails or is cut counts as taking forever. It runs
 * in curl on the load's core, as autocannon does, where the machine has curl: read by fetch in this process, the
 * body's 165 MB cost 1.0-1.3 s of CPU on the cores PostgreSQL and the server use, curl's 0.1-0.2 s.
 */
export async function download(url: string, token: string, pid: number) {
  const t0 = performance.now();
  const { result: bytes, peak } = await peakRss(pid, async () => {
    try {
      return hasCurl ? await curl(url, token) : await fetched(url, token);
    } catch (error) {
      log(
        `download failed after ${Math.round(performance.now() - t0)} ms: ${error instanceof Error ? error.message : error}`,
      );
      return -1;
    }
  });
  const seconds = bytes < 0 ? Infinity : (performance.now() - t0) / 1000;
  return { seconds, bytes, peak };
}

/** The body's length, read by curl on the load's core. */
function curl(url: string, token: string): Promise<number> {
  const cmd = pin(1, [
    'curl',
    '-sS',
    '-o',
    '/dev/null',
    '--max-time',
    '120',
    '-w',
    '%{http_code} %{size_download}',
    '-H',
    `authorization: Bearer ${token}`,
    url,
  ]);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd[0], cmd.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    // 'close', not 'exit': the output may still be unread when the process has exited.
    child.on('close', (code) => {
      const [status, size] = out.trim().split(' ');
      if (code === 0 && status === '200') resolve(Number(size));
      else reject(new Error(`curl exited ${code}: ${out.trim()}`));
    });
  });
}

/** The body's length, read in this process. */
async function fetched(url: string, token: string): Promise<number> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
  let n = 0;
  for await (const chunk of res.body!) n += chunk.length;
  return n;
}
