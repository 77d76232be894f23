// npm run bench -- --only http: the cheap requests. /v1/health and /v1/reports against a bare node:http server, and
// on PostgreSQL the same src/ on Bun and Deno beside Node, each ratio's runs back to back in interleaved rounds.
import { embedded, f, log, noResult, pin, processes, rounds, start, type PartResult, type Proc } from './harness.ts';
import { clean, errorNote, load, median, medianRun, type Load } from './measure.ts';
import type { Setup } from './setup.ts';

export const TARGETS = {
  health: { name: '/v1/health ≥ 70 % of bare node:http', bound: 0.7 },
  reports: { name: '/v1/reports ≥ 3,000 req/s', bound: 3000 },
  reportsShare: { name: '/v1/reports ≥ 40 % of /v1/health', bound: 0.4 },
  nodeVsBun: { name: 'PATH on Node ≥ 80 % of Bun', bound: 0.8 },
};

export async function httpPart({ server, bare, serverEnv, auth }: Setup): Promise<PartResult> {
  const result = noResult();
  const { rows, targets } = result;
  // The same src/ on Bun and Deno, against the same database, on the same core, loaded by the same autocannon: the
  // runtimes side by side. The embedded database is one process's own, so an embedded run measures Node alone.
  const runtimes: { name: string; proc: Proc }[] = [];
  if (!embedded) {
    for (const [name, cmd] of [
      ['Bun', ['node_modules/.bin/bun', 'src/main.ts']],
      ['Deno', ['node_modules/.bin/deno', 'run', '-A', 'src/main.ts']],
    ] as const) {
      const proc = await start(pin(0, [...cmd]), serverEnv);
      processes.push(proc);
      runtimes.push({ name, proc });
      await load(`${proc.url}/v1/reports`, proc.pid, 8, auth, 2);
    }
  }
  const bareRuns: Load[] = [];
  const healthRuns: Load[] = [];
  const reportsRuns: Load[] = [];
  const elsewhere = runtimes.map(() => ({ health: [] as Load[], reports: [] as Load[] }));
  const [bun, deno] = ['Bun', 'Deno'].map((name) => runtimes.findIndex((r) => r.name === name));
  const health = (proc: Proc, into: Load[]) => async () =>
    void into.push(await load(`${proc.url}/v1/health`, proc.pid, 32));
  const reportsOn = (proc: Proc, into: Load[]) => async () =>
    void into.push(await load(`${proc.url}/v1/reports`, proc.pid, 32, auth));
  // Each ratio's two runs back to back, and every other round in the reverse order: the machine's pace drifts within
  // seconds (BENCHMARKS.md, "The machine"), so runs ten seconds apart made a noisy pair.
  const round = [
    async () => void bareRuns.push(await load(`${bare.url}/`, bare.pid, 32)),
    health(server, healthRuns),
    ...(bun >= 0 ? [health(runtimes[bun].proc, elsewhere[bun].health)] : []),
    ...(bun >= 0 ? [reportsOn(runtimes[bun].proc, elsewhere[bun].reports)] : []),
    reportsOn(server, reportsRuns),
    ...(deno >= 0 ? [health(runtimes[deno].proc, elsewhere[deno].health)] : []),
    ...(deno >= 0 ? [reportsOn(runtimes[deno].proc, elsewhere[deno].reports)] : []),
  ];
  for (let n = 1; n <= rounds; n++) {
    log(
      `http round ${n}/${rounds}: bare node:http, /v1/health, /v1/reports${runtimes.map((r) => `, on ${r.name}`).join('')}`,
    );
    for (const run of n % 2 === 1 ? round : [...round].reverse()) await run();
  }
  const each = rounds > 1 ? ` (median of ${rounds} rounds)` : '';
  rows.push(
    [`bare node:http, floor${each}`, medianRun(bareRuns)],
    [`GET /v1/health${each}`, medianRun(healthRuns)],
    [`GET /v1/reports${each}`, medianRun(reportsRuns)],
  );
  for (const [i, { name }] of runtimes.entries()) {
    rows.push(
      [`GET /v1/health on ${name}${each}`, medianRun(elsewhere[i].health)],
      [`GET /v1/reports on ${name}${each}`, medianRun(elsewhere[i].reports)],
    );
  }
  const healthShare = median(healthRuns.map((r, i) => r.rps / bareRuns[i].rps));
  const reportsShare = median(reportsRuns.map((r, i) => r.rps / healthRuns[i].rps));
  const reportsRps = medianRun(reportsRuns).rps;
  const roundsNote = (ratios: number[]) => (rounds > 1 ? ` (rounds: ${ratios.map((x) => f(x * 100)).join(', ')})` : '');
  targets.push(
    [
      TARGETS.health.name,
      `${f(healthShare * 100)} %${roundsNote(healthRuns.map((r, i) => r.rps / bareRuns[i].rps))}${errorNote(...bareRuns, ...healthRuns)}`,
      healthShare >= TARGETS.health.bound && clean(...bareRuns, ...healthRuns),
    ],
    [
      TARGETS.reports.name,
      `${f(reportsRps)} req/s${errorNote(...reportsRuns)}`,
      reportsRps >= TARGETS.reports.bound && clean(...reportsRuns),
    ],
    [
      TARGETS.reportsShare.name,
      `${f(reportsShare * 100)} %${roundsNote(reportsRuns.map((r, i) => r.rps / healthRuns[i].rps))}${errorNote(...healthRuns, ...reportsRuns)}`,
      reportsShare >= TARGETS.reportsShare.bound && clean(...healthRuns, ...reportsRuns),
    ],
  );
  // Node is what `npm start` runs: within 80 % of Bun's pace on both paths, each round's pair measured back to back.
  // Beside it, requests per second of the server's CPU time: where one autocannon on one core cannot load Bun to
  // its full pace, the pace measures autocannon, and this measures the servers.
  if (bun >= 0) {
    for (const [path, ours, theirs] of [
      ['/v1/health', healthRuns, elsewhere[bun].health],
      ['/v1/reports', reportsRuns, elsewhere[bun].reports],
    ] as const) {
      const ratios = ours.map((r, i) => r.rps / theirs[i].rps);
      const share = median(ratios);
      const perCpu = median(ours.map((r, i) => theirs[i].cpuPerRequest / r.cpuPerRequest));
      const cpuNote = Number.isFinite(perCpu) ? `; per CPU-second ${f(perCpu * 100)} %` : '';
      targets.push([
        TARGETS.nodeVsBun.name.replace('PATH', path),
        `${f(share * 100)} %${roundsNote(ratios)}${cpuNote}${errorNote(...ours, ...theirs)}`,
        share >= TARGETS.nodeVsBun.bound && clean(...ours, ...theirs),
      ]);
    }
  }
  return result;
}
