// A heavy answer gives the event loop back between two of its chunks (docs/decisions.md §13: cheap requests never wait
// behind data or exports). Chunks already read resolve as microtasks, one after another in the same turn, so without
// this a few large answers kept other requests' I/O waiting for seconds (BENCHMARKS.md, "What makes it fast").
const later: (callback: () => void) => void =
  typeof setImmediate === 'function' ? setImmediate : (callback) => setTimeout(callback, 0);

/** The heavy answers waiting for their next chunk's turn, first come first served. */
const waiting: (() => void)[] = [];
let scheduled = false;

/**
 * One waiting answer a turn: had every waiting one run in the same turn, a cheap request's every step (its body, its
 * charge, its query) would wait behind a chunk of each heavy answer, rather than behind one.
 */
function release() {
  const next = waiting.shift();
  scheduled = waiting.length > 0;
  if (scheduled) later(release);
  next?.();
}

/** Resolves in a later turn of the event loop, after the I/O waiting now and a chunk of each answer before. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!scheduled) {
      scheduled = true;
      later(release);
    }
  });
}
