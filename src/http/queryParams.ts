// Query parameters checked at the edge with valibot; a violation is a 400 invalid-parameter naming the parameter.
import * as v from 'valibot';
import type { Context } from './context.ts';
import { ApiError } from './problem.ts';

export type Entries = v.ObjectEntries;

/** A whole number in [min, max], written plainly: "abc", "-1", "1.5" and "1e3" are refused, never clamped. */
export const wholeNumber = (name: string, min: number, max: number) =>
  v.pipe(
    v.string(),
    v.regex(/^\d{1,9}$/, `${name} must be a whole number from ${min} to ${max}`),
    v.transform(Number),
    v.minValue(min, `${name} must be a whole number from ${min} to ${max}`),
    v.maxValue(max, `${name} must be a whole number from ${min} to ${max}`),
  );

const single = (query: Context['query'], entries: Entries, multi: ReadonlySet<string>) => {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    if (Array.isArray(value) && !multi.has(key)) {
      throw new ApiError('invalid-parameter', `${key} is given more than once; give it once.`);
    }
    // PostgreSQL text cannot hold U+0000: a parameter the route reads that carries one would fail in the database.
    if (
      Object.hasOwn(entries, key) &&
      (Array.isArray(value) ? value : [value]).some((item) => typeof item === 'string' && item.includes('\u0000'))
    ) {
      throw new ApiError(
        'invalid-parameter',
        `${key} contains a NUL character (U+0000), which no name or id can hold.`,
      );
    }
    out[key] = value;
  }
  return out;
};

const NONE: ReadonlySet<string> = new Set();

/** Each route's entries are one module constant: its object schema is built once, not on every request. */
const schemas = new WeakMap<Entries, v.ObjectSchema<Entries, undefined>>();

function schemaOf<E extends Entries>(entries: E): v.ObjectSchema<E, undefined> {
  let schema = schemas.get(entries);
  if (!schema) schemas.set(entries, (schema = v.object(entries)));
  return schema as v.ObjectSchema<E, undefined>;
}

/** What a query with no parameters parses to, per route: the same every time, so it is worked out once (frozen). */
const withoutParameters = new WeakMap<Entries, object>();

const isEmpty = (query: Context['query']) => {
  for (const _ in query) return false;
  return true;
};

/**
 * Parses the request's query with the schema; parameters named in `multi` may repeat. Unknown parameters are ignored.
 */
export function readQuery<E extends Entries>(
  ctx: Pick<Context, 'query'>,
  entries: E,
  multi: ReadonlySet<string> = NONE,
): v.InferOutput<v.ObjectSchema<E, undefined>> {
  type Output = v.InferOutput<v.ObjectSchema<E, undefined>>;
  const empty = isEmpty(ctx.query);
  if (empty && withoutParameters.has(entries)) return withoutParameters.get(entries) as Output;
  const result = v.safeParse(schemaOf(entries), single(ctx.query, entries, multi));
  if (result.success && empty) withoutParameters.set(entries, Object.freeze(result.output));
  if (result.success) return result.output;
  const issue = result.issues[0];
  const key = v.getDotPath(issue)?.split('.')[0] ?? 'query';
  const given = ctx.query[key];
  const shown = typeof given === 'string' ? ` (got "${given.length > 60 ? `${given.slice(0, 60)}…` : given}")` : '';
  const message = issue.message.startsWith(key) ? issue.message : `${key}: ${issue.message}`;
  throw new ApiError('invalid-parameter', `${message}${shown}.`);
}
