// A value that is often ready at once: the cached answers of the request pipeline's checks.

/**
 * next(value), at once when value is ready, after it settles when it is a promise. The pipeline's checks answer from
 * memory on nearly every request; awaiting each of those answers cost a microtask turn and a promise apiece.
 */
export function whenReady<T, R>(value: T | Promise<T>, next: (value: T) => R): R | Promise<Awaited<R>> {
  return value instanceof Promise ? (value.then(next) as Promise<Awaited<R>>) : next(value);
}
