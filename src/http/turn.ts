// A heavy answer gives the event loop back between two of its chunks (docs/decisions.md §13: cheap requests never wait
// behind data or exports). Chunks already read resolve as microtasks, one after another in the same turn, so without
// this a few large answers kept other requests' I/O waiting for seconds (BENCHMARKS.md, "What makes it fast").
const later: (callback: () => void) => void =
  typeof setImmediate === 'function' ? setImmediate : (callback) => setTimeout(callback, 0);

/** Resolves in a later turn of the event loop, after the I/O that is waiting now. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => later(resolve));
}
