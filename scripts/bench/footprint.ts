// npm run bench -- --only footprint: the embedded database's idle memory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { f, log, pin, processes, serverCommand, start, type Met } from './harness.ts';
import { rssMb } from './measure.ts';

export const TARGETS = {
  idle: { name: 'embedded idle RSS ≤ 300 MB', bound: 300 },
};

/**
 * The embedded database's idle memory: a server started on an empty DATA_DIR (its first start, the demo seeded), and
 * the same started again, each measured at its first answer to /v1/health and ten seconds later.
 */
export async function footprintPart(): Promise<{ rows: string[]; targets: Met[] }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'readout-bench-footprint-'));
  const measure = async (what: string) => {
    const server = await start(pin(0, serverCommand()), {
      PORT: '0',
      DATA_DIR: dataDir,
      DATABASE_URL: undefined,
      DEMO: 'on',
    });
    processes.push(server);
    await fetch(`${server.url}/v1/health`).then((res) => res.arrayBuffer());
    const atHealth = rssMb(server.pid);
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const later = rssMb(server.pid);
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
    return { what, atHealth, later };
  };
  try {
    log('footprint: a first start on an empty DATA_DIR, then a restart');
    const runs = [await measure('first start (empty DATA_DIR, demo seeded)'), await measure('restart')];
    return {
      rows: runs.map(
        (r) =>
          `| embedded server idle, ${r.what}: at its first health, and 10 s later | | | | ${f(r.atHealth)}, ${f(r.later)} |`,
      ),
      targets: runs.map(
        (r) => [`${TARGETS.idle.name}, ${r.what}`, `${f(r.later)} MB`, r.later <= TARGETS.idle.bound] as Met,
      ),
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
