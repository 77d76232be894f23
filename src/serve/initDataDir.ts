// A fresh embedded data folder is prepared by a process of its own: PostgreSQL's initdb, the migrations and the demo
// grow PGlite's WebAssembly memory far past what serving needs, and that memory is never given back, so the server
// would idle at it until its first restart (BENCHMARKS.md, "Embedded idle memory").
import { spawn } from 'node:child_process';
import process from 'node:process';
import { bundled } from '../bundled.ts';

/** The environment variable under which the server's entry prepares the data folder it names, prints, and exits. */
export const PREPARE_DATA_DIR = 'READOUT_PREPARE_DATA_DIR';

/**
 * Runs the server's own entry again with PREPARE_DATA_DIR set, and returns what it printed on stdout: the executable
 * as it is, a source tree's entry under its runtime and flags. Its error carries the process's exit code (2: it has
 * said why on stderr, one line, as any start does). Deno's command line cannot be rebuilt from
 * process.argv: there, undefined, and the caller prepares the folder itself.
 */
export async function prepareApart(dataDir: string): Promise<string | undefined> {
  if ('Deno' in globalThis) return undefined;
  const args = bundled.command ? [] : [...process.execArgv, process.argv[1]];
  return new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, [PREPARE_DATA_DIR]: dataDir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(out)
        : reject(
            Object.assign(new Error(`preparing the database in ${dataDir} failed (exit ${code})`), { exitCode: code }),
          ),
    );
  });
}
