// Reads on hot standbys (DATABASE_REPLICA_URLS): report data, exports, lists, definitions and catalogues. Tokens,
// revocations, plans and quota stay on the primary.
//
// The guarantee: a read never sees less than the primary had committed when the read began. Each read asks the
// primary how far its WAL is flushed, and runs on a standby only once that standby has replayed that far (its
// snapshots then hold every such change); otherwise it runs on the primary. Lag is watched apart from that, so that a
// standby that is down or further behind than REPLICA_MAX_LAG_MS is not even tried until it catches up.
import type { Sql } from './database.ts';
import type { ExclusivePool } from './exclusive.ts';
import { query } from './queries.ts';
import { withTimeout } from './timeout.ts';

/** Where a read runs: the shared connections and those lent whole to heavy requests, of one server. */
export type ReadSource = { name: string; sql: Sql; heavy: ExclusivePool };

export type ReplicaState = { name: string; usable: boolean; lagMs: number | null; error?: string };

export type Reads = {
  /**
   * The source for a read that begins now: a standby that has replayed all the primary had flushed, or the primary
   * (at once, with no standby usable).
   */
  source(): ReadSource | Promise<ReadSource>;
  /** Each standby as last watched, for logs and metrics. */
  states(): ReplicaState[];
  /** Each standby's connections for report data and exports, for the metrics. */
  pools(): { pool: string; inUse: number; waiting: number; size: number }[];
  close(): Promise<void>;
};

export type ReplicaOptions = {
  urls: string[];
  maxLagMs: number;
  /** How each standby's connections are opened (the same settings as the primary's). */
  open: (url: string) => Sql;
  heavy: (sql: Sql) => ExclusivePool;
  /** How often lag is measured. */
  watchMs?: number;
  clock?: () => number;
};

/** A PostgreSQL LSN ("16/B374D848") as a number that orders like it. */
export function lsnValue(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

/** How long a read waits for a usable standby to replay what it must see, before it goes to the primary. */
const CATCH_UP_MS = 20;
/** A check of a standby or of the primary that takes longer than this counts as failed. */
const CHECK_TIMEOUT_MS = 1000;

type Standby = ReadSource & { state: ReplicaState };
/** The primary's flushed WAL position at a moment. */
type Seen = { at: number; lsn: bigint };

/** No standbys: every read on the primary, at no cost. */
export function primaryOnly(primary: ReadSource): Reads {
  return { source: () => primary, states: () => [], pools: () => [], close: async () => {} };
}

export function replicaReads(primary: ReadSource, options: ReplicaOptions): Reads {
  const clock = options.clock ?? Date.now;
  const standbys: Standby[] = [];
  for (const url of options.urls) {
    const sql = options.open(url);
    const name = describe(url);
    standbys.push({
      name,
      sql,
      heavy: options.heavy(sql),
      state: { name, usable: false, lagMs: null, error: 'not checked yet' },
    });
  }
  // The primary's flushed WAL as the watch saw it, oldest first: a standby that has replayed up to the position seen
  // at time t is no further behind than now - t.
  const seen: Seen[] = [];
  let next = 0;

  async function watch() {
    try {
      const [{ lsn }] = await withTimeout(query(primary.sql, 'wal-flushed'), CHECK_TIMEOUT_MS);
      seen.push({ at: clock(), lsn: lsnValue(lsn) });
      while (seen.length > 2 && clock() - seen[1].at > options.maxLagMs * 2 + 10_000) seen.shift();
    } catch {
      // The primary does not answer: reads cannot be gated on it, and fail as every metered request does.
    }
    await Promise.all(standbys.map(check));
  }

  const check = (standby: Standby) => watchStandby(standby, seen, clock, options.maxLagMs);

  // Every standby is unusable until its first check, which starts now.
  let watching = true;
  void watch().finally(() => (watching = false));
  const timer = setInterval(() => {
    if (watching) return;
    watching = true;
    void watch().finally(() => (watching = false));
  }, options.watchMs ?? 250);
  timer.unref?.();

  /** Whether the standby has replayed up to lsn; a standby that cannot say is marked unusable until the next watch. */
  async function caughtUp(standby: Standby, lsn: string): Promise<boolean> {
    try {
      const [row] = await withTimeout(query(standby.sql, 'standby-caught-up', { lsn }), CHECK_TIMEOUT_MS);
      return row.caught_up === true;
    } catch (error) {
      standby.state = {
        ...standby.state,
        usable: false,
        error: error instanceof Error ? error.message : String(error),
      };
      return false;
    }
  }

  return {
    source() {
      const usable = standbys.filter((s) => s.state.usable);
      return usable.length ? caughtUpStandby(usable) : primary;
    },
    states: () => standbys.map((s) => s.state),
    pools: () => standbys.map((s) => ({ pool: `heavy ${s.name}`, ...s.heavy.stats() })),
    async close() {
      clearInterval(timer);
      await Promise.all(standbys.map(async (s) => (await s.heavy.close(), await s.sql.end({ timeout: 5 }))));
    },
  };

  /** A usable standby that has replayed what the primary had flushed when asked, or the primary after CATCH_UP_MS. */
  async function caughtUpStandby(usable: Standby[]): Promise<ReadSource> {
    const [{ lsn }] = await query(primary.sql, 'wal-flushed');
    // Round robin over the usable standbys, starting at the next one; each may wait a moment to catch up.
    const start = next++ % usable.length;
    const order = [...usable.slice(start), ...usable.slice(0, start)];
    const until = clock() + CATCH_UP_MS;
    for (;;) {
      for (const standby of order) {
        // Asked every time, never inferred from an earlier answer: a standby that restarted replays again from its
        // last restart point, behind where it was.
        if (standby.state.usable && (await caughtUp(standby, lsn))) return standby;
      }
      if (clock() >= until) return primary;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

/** Measures a standby's lag against the primary's positions seen, and marks it usable when within maxLagMs. */
async function watchStandby(standby: Standby, seen: Seen[], clock: () => number, maxLagMs: number): Promise<void> {
  try {
    const [row] = await withTimeout(query(standby.sql, 'standby-position'), CHECK_TIMEOUT_MS);
    if (!row.standby || row.replayed === null) throw new Error('not a standby (not in recovery)');
    const replayed = lsnValue(row.replayed);
    const caughtUpTo = seen.findLast((s) => s.lsn <= replayed);
    const lagMs = caughtUpTo ? Math.max(0, clock() - caughtUpTo.at) : null;
    standby.state = { name: standby.name, lagMs, usable: lagMs !== null && lagMs <= maxLagMs };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    standby.state = { name: standby.name, usable: false, lagMs: null, error: why };
  }
}

/** A standby's URL without its credentials, for logs. */
function describe(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
}
