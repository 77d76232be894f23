// The heavy connections' places, shared fairly between organizations (docs/decisions.md §13): no owner holds more than
// its cap, and a place that comes free goes to the waiting owner that holds fewest, then to the one served longest
// ago, so one organization's downloads, stalled or not, never keep another's waiting behind all of them.

export type FairSlots = {
  /** Resolves once owner holds a place; rejects when signal aborts first, or the slots close. */
  acquire(owner: string, signal: AbortSignal): Promise<void>;
  /** Gives owner's place back, to the next waiter in fair order. */
  release(owner: string): void;
  /** Rejects every waiter: no place will come. */
  close(reason: Error): void;
  stats(): { inUse: number; waiting: number };
};

type Waiter = { owner: string; resolve(): void; reject(error: unknown): void };

/** Owners remembered for the order of service; past this many the memory starts again (a bound, not a rule). */
const REMEMBERED = 10_000;

export function fairSlots(size: number, perOwner: number): FairSlots {
  const held = new Map<string, number>();
  /** When each owner last got a place, in grants counted: the smaller, the longer ago. */
  const servedAt = new Map<string, number>();
  const waiting: Waiter[] = [];
  let inUse = 0;
  let grants = 0;

  const holds = (owner: string) => held.get(owner) ?? 0;
  const grant = (owner: string) => {
    inUse++;
    held.set(owner, holds(owner) + 1);
    if (servedAt.size >= REMEMBERED) servedAt.clear();
    servedAt.set(owner, ++grants);
  };
  /** a is served before b: it holds fewer, or as many and was served longer ago (in arrival order otherwise). */
  const before = (a: Waiter, b: Waiter) =>
    holds(a.owner) - holds(b.owner) || (servedAt.get(a.owner) ?? 0) - (servedAt.get(b.owner) ?? 0);

  function dispatch() {
    while (inUse < size) {
      let next = -1;
      for (let i = 0; i < waiting.length; i++)
        if (holds(waiting[i].owner) < perOwner && (next < 0 || before(waiting[i], waiting[next]) < 0)) next = i;
      if (next < 0) return;
      const [waiter] = waiting.splice(next, 1);
      grant(waiter.owner);
      waiter.resolve();
    }
  }

  return {
    acquire(owner, signal) {
      if (inUse < size && holds(owner) < perOwner && waiting.length === 0) {
        grant(owner);
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const giveUp = () => {
          const at = waiting.indexOf(waiter);
          if (at >= 0) waiting.splice(at, 1);
          reject(signal.reason ?? new Error('aborted'));
        };
        const waiter: Waiter = {
          owner,
          resolve: () => (signal.removeEventListener('abort', giveUp), resolve()),
          reject,
        };
        if (signal.aborted) return giveUp();
        signal.addEventListener('abort', giveUp, { once: true });
        waiting.push(waiter);
        dispatch();
      });
    },
    release(owner) {
      inUse--;
      const left = holds(owner) - 1;
      if (left > 0) held.set(owner, left);
      else held.delete(owner);
      dispatch();
    },
    close(reason) {
      for (const waiter of waiting.splice(0)) waiter.reject(reason);
    },
    stats: () => ({ inUse, waiting: waiting.length }),
  };
}
