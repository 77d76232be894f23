// Bounds a wait on the store: while the database is away, postgres.js queues queries until it returns.
export class TimedOut extends Error {}

export function withTimeout<T>(work: PromiseLike<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    Promise.resolve(work),
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new TimedOut(`no answer in ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}
