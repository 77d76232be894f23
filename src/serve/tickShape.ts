// Keeps the hidden classes of Node's own process.nextTick objects alive for the life of the process.
//
// nextTick builds every tick from an object literal with computed (symbol) keys. V8 caches how to add each of those
// keys against the object's hidden class, held weakly; once a full collection finds no tick alive (a server idle
// through a few of them: V8's memory reducer runs them), the class is collected, the next tick builds a new one, and
// each of those caches turns megamorphic for good. Every later tick then adds its properties in V8's runtime, for the
// life of the process (BENCHMARKS.md, "What makes it fast"). An object written as the same literal gets the
// same classes (V8 shares them between literals of one form), and holding it keeps them, so the caches stay
// monomorphic. Node's AsyncResource carries the tick's two symbols; where they are not found (Bun, Deno), or the
// literal is of another form, nothing is kept.
import { AsyncResource } from 'node:async_hooks';
import process from 'node:process';

/** nextTick's literal as this Node writes it (lib/internal/process/task_queues.js): its keys, in order. */
function tickKeys(): string {
  const literal = /const tickObject = \{([^}]*)\}/.exec(process.nextTick.toString())?.[1] ?? '';
  return literal
    .split(',')
    .map((entry) => entry.split(':')[0].trim())
    .filter(Boolean)
    .join(' ');
}

// Node 22 and later add the async context frame under a symbol no public object carries: a stand-in in its place
// keeps the classes up to it, and the two after it (callback, args) are still lost to an idle server.
const FRAME_STAND_IN = Symbol('readout.tickShape.frame');

function tickShaped(): { kept: object; whole: boolean } | undefined {
  const resource = new AsyncResource('readout.tickShape');
  const fields = resource as unknown as Record<symbol, unknown>;
  const symbols = Object.getOwnPropertySymbols(resource);
  const asyncId = symbols.find((s) => s.description === 'async_id_symbol');
  const triggerId = symbols.find((s) => s.description === 'trigger_async_id_symbol');
  if (!asyncId || !triggerId) return undefined;
  const callback = function tick() {};
  // Written as nextTick writes it, values of the same kinds: the literal's form is what decides its classes.
  switch (tickKeys()) {
    case '[async_id_symbol] [trigger_async_id_symbol] callback args':
      return {
        kept: { [asyncId]: fields[asyncId], [triggerId]: fields[triggerId], callback, args: undefined },
        whole: true,
      };
    case '[async_id_symbol] [trigger_async_id_symbol] [async_context_frame] callback args':
      return {
        kept: {
          [asyncId]: fields[asyncId],
          [triggerId]: fields[triggerId],
          [FRAME_STAND_IN]: undefined,
          callback,
          args: undefined,
        },
        whole: false,
      };
    default:
      return undefined;
  }
}

/**
 * Held for the process's life. `whole` where every class of the tick is kept; read by the test, which checks V8's
 * own feedback for nextTick after idle collections.
 */
export const tickShape = tickShaped();
