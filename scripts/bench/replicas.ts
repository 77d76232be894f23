// npm run bench -- --only replicas: the data workload against a primary alone and against the same primary with a
// streaming standby taking the reads, both made here (initdb, pg_basebackup); with PgBouncer, through it as well.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { migrate } from '../../src/store/migrate.ts';
import { pgbouncerBin, startCluster, startPgBouncer, type Bouncer, type PostgresServer } from '../postgresServers.ts';
import { dataSet, tokenFor } from './dataSet.ts';
import { duration, f, log, pin, rounds, scale, serverCommand, start, type Met, type Proc } from './harness.ts';
import { clean, errorNote, load, medianRun, type Load } from './measure.ts';

export const TARGETS = {
  alone: { name: 'primary alone: answers per CPU-second of database work', bound: 0 },
  standby: { name: 'primary + standby: the standby does most of the database work', bound: 1 },
  pooled: { name: 'primary through PgBouncer: answers per CPU-second of database work', bound: 0 },
};

/** CPU seconds a process has used so far (/proc, 100 ticks a second); 0 once it is gone. */
function processCpu(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds used so far by a PostgreSQL server: its postmaster and every process it started. */
function serverCpu(server: PostgresServer): number {
  const postmaster = Number(readFileSync(join(server.dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // After the command's closing parenthesis: state, ppid, ... utime (14th field) and stime (15th).
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      if (Number(entry) === postmaster || Number(fields[1]) === postmaster)
        ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / 100;
}

/**
 * The data workload (groupBy=campaign, c=4) against a primary alone and against the same primary with a streaming
 * standby taking the reads (DATABASE_REPLICA_URLS), both servers made here with initdb and pg_basebackup, in
 * interleaved rounds. Both servers share this machine's cores with each other and with the API process, so the
 * throughput says little about a standby on its own machine; the figure that carries over is the database CPU each
 * answer costs, and where it is spent. With PgBouncer installed, a third process reads the primary through it in
 * transaction pooling mode: what that mode's extra round trips cost.
 */
export async function replicasPart(): Promise<{ rows: string[]; targets: Met[] }> {
  const cluster = await startCluster(1);
  const started: Proc[] = [];
  const db = postgres(cluster.primary.url(), { max: 4, onnotice: () => {} });
  let bouncer: Bouncer | undefined;
  try {
    const [primary, standby] = [cluster.primary, cluster.standbys[0]];
    await migrate(db);
    const set = await dataSet(db, `Bench replicas ${scale}`, {
      accounts: 20,
      campaigns: Math.round(2000 * scale),
      creatives: Math.round(10000 * scale),
      days: 400,
    });
    const [{ lsn }] = await db`select pg_current_wal_lsn()::text as lsn`;
    for (let i = 0; standby.psql(`select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn`) !== 't'; i++) {
      if (i > 600) throw new Error('the standby did not catch up in 60 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const env = { PORT: '0', DEMO: 'off', HEAVY_PER_CLIENT: '10', DATABASE_URL: primary.url(), DATA_DIR: undefined };
    const alone = await start(pin(0, serverCommand()), env);
    started.push(alone);
    const withStandby = await start(pin(0, serverCommand()), { ...env, DATABASE_REPLICA_URLS: standby.url() });
    started.push(withStandby);
    // Room for every connection of the process (10 shared, 10 heavy), so no statement waits in PgBouncer.
    bouncer = pgbouncerBin() ? await startPgBouncer(cluster.root, primary, 20) : undefined;
    const pooled =
      bouncer &&
      (await start(pin(0, serverCommand()), {
        ...env,
        DATABASE_URL: bouncer.url(),
        DATABASE_POOL_MODE: 'transaction',
        MIGRATION_DATABASE_URL: primary.url(),
      }));
    if (pooled) started.push(pooled);
    const [{ last }] = await db`select max(day)::text as last from facts where organization_id = ${set.org}`;
    const from = new Date(Date.parse(last) - 399 * 86_400_000).toISOString().slice(0, 10);
    const path = `/v1/reports/${set.report}/data?dateFrom=${from}&dateTo=${last}&groupBy=campaign`;
    type Measured = Load & { primaryCpu: number; standbyCpu: number; bouncerCpu: number };
    const measure = async (server: Proc): Promise<Measured> => {
      const auth = { authorization: `Bearer ${await tokenFor(server.url, set.client)}` };
      await fetch(server.url + path, { headers: auth }).then((res) => res.arrayBuffer());
      const cpu = () => [serverCpu(primary), serverCpu(standby), bouncer ? processCpu(bouncer.pid) : 0];
      const before = cpu();
      const measured = await load(server.url + path, server.pid, 4, auth);
      const after = cpu();
      return {
        ...measured,
        primaryCpu: after[0] - before[0],
        standbyCpu: after[1] - before[1],
        bouncerCpu: after[2] - before[2],
      };
    };
    const aloneRuns: Measured[] = [];
    const standbyRuns: Measured[] = [];
    const pooledRuns: Measured[] = [];
    for (let round = 1; round <= rounds; round++) {
      log(
        `replicas round ${round}/${rounds}: the primary alone, primary + standby${pooled ? ', the primary through PgBouncer' : ''}`,
      );
      aloneRuns.push(await measure(alone));
      standbyRuns.push(await measure(withStandby));
      if (pooled) pooledRuns.push(await measure(pooled));
    }
    const each = rounds > 1 ? `, median of ${rounds} rounds` : '';
    const row = (name: string, runs: Measured[]) => {
      const r = medianRun(runs);
      const cpu = r.primaryCpu + r.standbyCpu;
      const answers = r.rps * duration;
      return {
        line: `| ${name} (c=4${each}) | ${f(r.rps)} | ${f(r.p50, 1)} | ${f(r.p99, 1)} | |`,
        perCore: answers / cpu,
        where: `primary ${f(r.primaryCpu, 1)} s, standby ${f(r.standbyCpu, 1)} s of database CPU${r.bouncerCpu ? `, PgBouncer ${f(r.bouncerCpu, 1)} s` : ''} for ${f(answers)} answers`,
        run: r,
      };
    };
    const a = row('data groupBy=campaign, the primary alone', aloneRuns);
    const b = row('data groupBy=campaign, primary + standby', standbyRuns);
    const c = pooled
      ? row('data groupBy=campaign, the primary through PgBouncer, transaction pooling', pooledRuns)
      : undefined;
    if (!pooled) log("replicas: no PgBouncer row, needs PgBouncer (Debian's pgbouncer package)");
    return {
      rows: [a.line, b.line, ...(c ? [c.line] : [])],
      targets: [
        [TARGETS.alone.name, `${f(a.perCore)} (${a.where})${errorNote(a.run)}`, clean(a.run)],
        [
          TARGETS.standby.name,
          `${f(b.perCore)} answers per CPU-second (${b.where})${errorNote(b.run)}`,
          clean(b.run) && b.run.standbyCpu > TARGETS.standby.bound * b.run.primaryCpu,
        ],
        ...(c
          ? ([
              [TARGETS.pooled.name, `${f(c.perCore)} (${c.where}, not counted)${errorNote(c.run)}`, clean(c.run)],
            ] as Met[])
          : []),
      ],
    };
  } finally {
    for (const p of started) p.child.kill('SIGTERM');
    await db.end({ timeout: 1 });
    await bouncer?.stop();
    cluster.remove();
  }
}
