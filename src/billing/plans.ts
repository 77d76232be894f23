// The plan behind each organization, cached per process with the states of docs/decisions.md §3.
import type { Plan } from '../http/caller.ts';
import type { Sql } from '../store/database.ts';
import { query } from '../store/queries.ts';
import { withTimeout } from '../store/timeout.ts';

export type { Plan };

export type PlanState = 'healthy' | 'stale' | 'unknown';

/** Reads an organization's plan from the billing store; throws when the store cannot be reached. */
export type PlanReader = (organizationId: string) => Promise<Plan | undefined>;

export function storePlanReader(sql: Sql): PlanReader {
  return async (organizationId) => {
    const [row] = await query(sql, 'get-subscription', { org: organizationId });
    return (
      row && {
        code: row.code,
        name: row.name,
        publicApi: row.public_api,
        conversionMetrics: row.conversion_metrics,
        budget: row.budget,
        locked: row.locked,
      }
    );
  };
}

// docs/decisions.md §3: healthy within 5 minutes of confirmation; a snapshot is served up to 60 minutes.
export const HEALTHY_FOR_MS = 5 * 60_000;
export const SNAPSHOT_FOR_MS = 60 * 60_000;
/** How often a plan is re-read: lock and plan changes reach every process this fast. */
const REFRESH_AFTER_MS = 1000;
/** A billing store slower than this counts as unreachable for this refresh. */
const READ_TIMEOUT_MS = 2000;

/** gone: the store answered that the organization does not exist (deleted): its tokens name nobody. */
type Entry = { plan?: Plan; gone?: boolean; confirmedAt: number; attemptedAt: number; refreshing?: Promise<void> };

export type PlanStanding = { plan?: Plan; state: PlanState; gone?: boolean };

/** An organization's standing: at once, unless a refresh is due or under way, which it waits for. */
export type Plans = { standing(organizationId: string): PlanStanding | Promise<PlanStanding> };

export function planCache(read: PlanReader, clock: () => number): Plans {
  const entries = new Map<string, Entry>();

  function refresh(organizationId: string, entry: Entry) {
    entry.refreshing ??= (async () => {
      entry.attemptedAt = clock();
      try {
        const plan = await withTimeout(read(organizationId), READ_TIMEOUT_MS);
        entry.plan = plan;
        entry.gone = plan === undefined;
        entry.confirmedAt = entry.attemptedAt;
      } catch {
        // The snapshot stays; its age decides the state.
      } finally {
        entry.refreshing = undefined;
      }
    })();
    return entry.refreshing;
  }

  function added(organizationId: string): Entry {
    const entry = { confirmedAt: -Infinity, attemptedAt: -Infinity };
    entries.set(organizationId, entry);
    return entry;
  }

  function standingOf(entry: Entry): PlanStanding {
    const age = clock() - entry.confirmedAt;
    const state: PlanState = age < HEALTHY_FOR_MS ? 'healthy' : age < SNAPSHOT_FOR_MS ? 'stale' : 'unknown';
    if (entry.gone) return { state, gone: true };
    return { plan: state === 'unknown' ? undefined : entry.plan, state };
  }

  return {
    standing(organizationId) {
      const entry = entries.get(organizationId) ?? added(organizationId);
      // A failed read is retried at most once per refresh period, so a down store is not hammered.
      if (clock() - entry.attemptedAt >= REFRESH_AFTER_MS)
        return refresh(organizationId, entry).then(() => standingOf(entry));
      if (entry.refreshing) return entry.refreshing.then(() => standingOf(entry));
      return standingOf(entry);
    },
  };
}
