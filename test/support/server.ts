// Starts the real server (or CLI) as a child process under Node (tsx), Bun or Deno.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A runtime running the source tree, or the executable npm run build writes. */
export type Runtime = 'node' | 'bun' | 'deno' | { executable: string };

const bin = (name: string) => join(process.cwd(), 'node_modules', '.bin', name);

/** The parent's environment without FORCE_COLOR, which beside NO_COLOR makes Node print a warning on stderr. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.FORCE_COLOR;
  return env;
}

/**
 * Node runs the entry as `npm start` does, `node --import tsx`: the tsx command would run it in a child process of its
 * own, which a SIGKILL to tsx leaves running.
 */
export function command(runtime: Runtime, entry: string): [string, string[]] {
  if (typeof runtime === 'object') return [runtime.executable, []]; // it is the server, and runs a command when given one
  if (runtime === 'bun') return [bin('bun'), [entry]];
  if (runtime === 'deno') return [bin('deno'), ['run', '-A', entry]];
  return [process.execPath, ['--import', 'tsx', entry]];
}

export type RunningServer = {
  url: string;
  child: ChildProcess;
  output(): string;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
};

export function temporaryDir(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'readout-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A token from a running server, for a client made by the test. */
export async function tokenFrom(
  server: { url: string },
  client: { clientId: string; clientSecret: string },
): Promise<string> {
  const res = await fetch(`${server.url}/api/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    }),
  });
  return (await res.json()).access_token;
}

/** Starts src/main.ts on a free port (of cwd's checkout, else this one) and waits for its "listening" log line. */
export async function startServer(
  env: Record<string, string>,
  runtime: Runtime = 'node',
  cwd?: string,
): Promise<RunningServer> {
  const [cmd, args] = command(runtime, 'src/main.ts');
  const child = spawn(cmd, args, { env: childEnv({ PORT: '0', ...env }), stdio: ['ignore', 'pipe', 'pipe'], cwd });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 60 s:\n${out}`)), 60_000);
    const look = () => {
      const match = /"msg":"listening","url":"([^"]+)"/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on('data', look);
    exited.then((code) => (clearTimeout(timer), reject(new Error(`server exited with ${code}:\n${out}`))));
  });
  return {
    url,
    child,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs a command to completion without blocking this process (which may host the embedded database). */
export function run(runtime: Runtime, entry: string, args: string[], env: Record<string, string> = {}) {
  const [cmd, base] = command(runtime, entry);
  const child = spawn(cmd, [...base, ...args], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (status) => resolve({ status, stdout, stderr })),
  );
}

/** Runs a command to completion (the CLI, or the server expected to refuse to start). */
export function runSync(runtime: Runtime, entry: string, args: string[], env: Record<string, string> = {}) {
  const [cmd, base] = command(runtime, entry);
  const result = spawnSync(cmd, [...base, ...args], { env: childEnv(env), encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
