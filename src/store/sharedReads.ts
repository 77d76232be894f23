// One read shared by the requests that ask for the same thing at once (report/scope.ts). A request takes only a read
// begun after it arrived, so it sees every write committed before it came, exactly as a read of its own would: one
// that arrives while a read is under way waits for the next, which every request arriving meanwhile shares.
import type { Sql } from './database.ts';

type Slot<T> = { running?: Promise<T>; next?: Promise<T> };

export type SharedReads<T> = (sql: Sql, key: string, read: () => Promise<T>) => Promise<T>;

/**
 * Shared reads by key, kept apart per database (a process may hold several: tests, standbys). A failed read fails
 * every request that shared it, as each of their own reads would have; the next request reads afresh.
 */
export function sharedReads<T>(): SharedReads<T> {
  const slotsOf = new WeakMap<Sql, Map<string, Slot<T>>>();

  function begin(slots: Map<string, Slot<T>>, key: string, slot: Slot<T>, read: () => Promise<T>): Promise<T> {
    const running = read().finally(() => {
      if (slot.running !== running) return;
      slot.running = undefined;
      if (!slot.next) slots.delete(key);
    });
    slot.running = running;
    return running;
  }

  return (sql, key, read) => {
    let slots = slotsOf.get(sql);
    if (!slots) slotsOf.set(sql, (slots = new Map()));
    let slot = slots.get(key);
    if (!slot) slots.set(key, (slot = {}));
    const { running } = slot;
    if (!running) return begin(slots, key, slot, read);
    // Begun before this request came: it may have missed a write this request must see.
    const current = slot;
    const store = slots;
    current.next ??= running
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        current.next = undefined;
        return begin(store, key, current, read);
      });
    return current.next;
  };
}
