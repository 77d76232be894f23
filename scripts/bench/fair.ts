// npm run bench -- --only fair (docs/decisions.md §13): another organization's cheap requests (a list every 100 ms, a
// token every fifth time) while four clients each run four heavy requests at once (120,000-row creative answers
// sorted by a custom metric, and CSV and XLSX exports of them, read at full speed), for twice a scenario's time.
import { spawn } from 'node:child_process';
import { benchClient, tokenFor } from './dataSet.ts';
import { duration, f, log, noResult, pin, processes, serverCommand, start, type PartResult } from './harness.ts';
import { median } from './measure.ts';
import type { Setup } from './setup.ts';

export const TARGETS = {
  worst: { name: "another organization's /v1/reports beside sixteen heavy ones: worst < 250 ms", bound: 250 },
  p95: { name: 'p95 < 150 ms', bound: 150 },
  timedOut: { name: 'no heavy request beside them times out', bound: 0 },
};

export async function fairPart(setup: Setup): Promise<PartResult> {
  const { sql, big, exportToken, auth, main, serverEnv } = setup;
  const result = noResult();
  const { after, targets } = result;
  // docs/decisions.md §13: another organization's cheap requests (a list every 100 ms, a token every fifth time)
  // while four clients each run four heavy requests at once (120,000-row creative answers sorted by a custom metric,
  // and CSV and XLSX exports of them, read at full speed), for twice a scenario's time. On a server of its own with
  // the default limits, as the target says: the bench's server lets a client run ten (the memory scenario), which
  // makes its heavy pool eleven connections rather than HEAVY_PER_CLIENT + 1, and cheap requests wait behind them.
  const fair = await start(pin(0, serverCommand()), { ...serverEnv, HEAVY_PER_CLIENT: undefined });
  processes.push(fair);
  const [{ day, n: exported }] =
    await sql`select max(day)::text as day, count(*)::int as n from facts where organization_id = ${big.org}`;
  const accountsFor120k = Math.min(big.accounts.length, Math.ceil((big.accounts.length * 120_000) / exported));
  const scope = `dateFrom=${day}&dateTo=${day}&groupBy=creative&adAccountIds=${big.accounts.slice(0, accountsFor120k).join(',')}`;
  const heavyPaths = [
    `data?${scope}&metrics=impressions,clicks,spend,ctr,engagement&sort=engagement&sortDesc=true`,
    `export.csv?${scope}&metrics=impressions,clicks,spend,ctr,engagement&sort=clicks`,
    `export.xlsx?${scope}`,
  ];
  const heavyTokens = [
    exportToken,
    ...(await Promise.all([1, 2, 3].map(async () => tokenFor(fair.url, await benchClient(sql, big.org, big.report))))),
  ];
  // In a process of its own, on the load's core: the bench's own reading of the heavy answers must not delay it.
  const probing = (seconds: number) =>
    new Promise<{ ms: number; ok: boolean; list: boolean }[]>((resolve, reject) => {
      const probe = JSON.stringify({
        url: fair.url,
        token: auth.authorization.slice('Bearer '.length),
        clientId: main.client.clientId,
        clientSecret: main.client.clientSecret,
        seconds,
      });
      const args = pin(1, ['node', '--import', 'tsx', 'scripts/bench/probe.ts', probe]);
      const child = spawn(args[0], args.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk) => (out += chunk));
      child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`probe exited ${code}`))));
    });
  log('cheap requests alone, then beside sixteen heavy ones');
  const alone = await probing(Math.min(5, duration));
  const heavyStatuses: number[] = [];
  /** A heavy answer's status when its download was cut after the headers. */
  const CUT = -1;
  let heavyWorst = 0;
  const seconds = 2 * duration;
  const until = performance.now() + seconds * 1000;
  const heavy = heavyTokens.flatMap((heavyToken, c) =>
    Array.from({ length: 4 }, async (_, l) => {
      for (let i = 0; performance.now() < until && i < 100; i++) {
        const t0 = performance.now();
        const res = await fetch(`${fair.url}/v1/reports/${big.report}/${heavyPaths[(c + l + i) % heavyPaths.length]}`, {
          headers: { authorization: `Bearer ${heavyToken}` },
        });
        // The deadline cuts a download mid-stream (docs/decisions.md §6): a timeout, as a 503 before it starts is.
        try {
          for await (const _ of res.body ?? []);
          heavyStatuses.push(res.status);
        } catch {
          heavyStatuses.push(CUT);
        }
        heavyWorst = Math.max(heavyWorst, performance.now() - t0);
      }
    }),
  );
  const [beside] = await Promise.all([
    (async () => (await new Promise((resolve) => setTimeout(resolve, 1000)), probing(seconds - 1)))(),
    ...heavy,
  ]);
  const worst = (seen: { ms: number }[]) => Math.max(...seen.map((s) => s.ms));
  const p50 = (seen: { ms: number }[]) => median(seen.map((s) => s.ms));
  const p95 = (seen: { ms: number }[]) => seen.map((s) => s.ms).sort((a, b) => a - b)[Math.floor(seen.length * 0.95)];
  const lists = beside.filter((s) => s.list);
  const timedOut = heavyStatuses.filter((s) => s === 503 || s === CUT).length;
  const failed =
    [...alone, ...beside].filter((s) => !s.ok).length +
    heavyStatuses.filter((s) => s !== 200 && s !== 503 && s !== CUT).length;
  after.push(
    `| cheap requests of another organization, alone (list, token) | | ${f(p50(alone), 1)} | worst ${f(worst(alone), 1)} | |`,
  );
  after.push(
    `| the same beside 4 clients × 4 heavy requests (${heavyStatuses.length} done, worst ${f(heavyWorst / 1000, 1)} s) | | ${f(p50(beside), 1)} | worst ${f(worst(beside), 1)} | |`,
  );
  after.push(
    `| of them, GET /v1/reports alone (${lists.length}; p95 ${f(p95(lists), 1)} ms) | | ${f(p50(lists), 1)} | worst ${f(worst(lists), 1)} | |`,
  );
  targets.push(
    [
      `${TARGETS.worst.name}, ${TARGETS.p95.name}`,
      `worst ${f(worst(lists))} ms, p95 ${f(p95(lists))} ms (with tokens: worst ${f(worst(beside))} ms)` +
        `${failed ? `, ${failed} failed` : ''}`,
      worst(lists) < TARGETS.worst.bound && p95(lists) < TARGETS.p95.bound && failed === 0,
    ],
    [
      TARGETS.timedOut.name,
      `${timedOut} of ${heavyStatuses.length}`,
      timedOut <= TARGETS.timedOut.bound && heavyStatuses.length > 0,
    ],
  );
  fair.child.kill('SIGTERM');
  await new Promise((resolve) => fair.child.once('exit', resolve));
  return result;
}
