// Keeps the hidden class of Node's own process.nextTick objects alive for the life of the process.
//
// nextTick builds every tick from an object literal with computed (symbol) keys. V8 caches how to add each of those
// keys against the object's hidden class, held weakly; once a full collection finds no tick alive (a server idle
// through a few of them: V8's memory reducer runs them), the class is collected, the next tick builds a new one, and
// each of those caches turns megamorphic for good. Every later tick then adds its properties in V8's runtime: 8-12 %
// of a cheap request's CPU on Node 20, for the life of the process. An object of the same shape kept here keeps that
// class, and the caches stay monomorphic. Node's AsyncResource carries the same two symbols; where they are not found
// (Bun, Deno, a Node that builds ticks otherwise), there is nothing to keep.
import { AsyncResource } from 'node:async_hooks';

function tickShaped(): object | undefined {
  const resource = new AsyncResource('readout.tickShape');
  const symbols = Object.getOwnPropertySymbols(resource);
  const asyncId = symbols.find((s) => s.description === 'async_id_symbol');
  const triggerId = symbols.find((s) => s.description === 'trigger_async_id_symbol');
  if (!asyncId || !triggerId) return undefined;
  const resourceFields = resource as unknown as Record<symbol, number>;
  // The literal as nextTick writes it (lib/internal/process/task_queues.js), values of the same kinds: V8 gives
  // literals of one form the one hidden class, so this object holds the ticks' class and the chain that leads to it.
  return {
    [asyncId]: resourceFields[asyncId],
    [triggerId]: resourceFields[triggerId],
    callback: function tick() {},
    args: undefined,
  };
}

/** Held for the process's life; exported for the test that checks it shares the ticks' hidden class. */
export const keptTick = tickShaped();
