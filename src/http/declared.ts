// docs/decisions.md §8: a query parameter the OpenAPI document does not declare for its operation is refused, naming
// it. A misspelt parameter silently ignored gives a job an answer it never asked for (`groupby=campaign`: the totals).
import openapi from '../../spec/openapi.json' with { type: 'json' };
import type { Context } from './context.ts';
import { didYouMean } from './nearest.ts';
import { ApiError } from './problem.ts';

type Parameter = { name: string; in: string };
type Operation = { parameters?: (Parameter | { $ref: string })[] };

const components = openapi.components.parameters as Record<string, Parameter>;

/** Each GET operation's query parameters, by its route as the router names it (`{reportId}` is `:id`). */
const DECLARED = new Map<string, { path: string; names: ReadonlySet<string> }>();
for (const [path, item] of Object.entries(openapi.paths as Record<string, { get?: Operation }>)) {
  if (!item.get) continue;
  const names = new Set<string>();
  for (const raw of item.get.parameters ?? []) {
    const parameter = '$ref' in raw ? components[raw.$ref.split('/').pop()!] : raw;
    if (parameter.in === 'query') names.add(parameter.name);
  }
  DECLARED.set(path.replace(/\{[^}]+\}/g, ':id'), { path, names });
}

/** Pipeline step: 400 invalid-parameter for the first query parameter the operation does not declare. */
export function refuseUndeclared(ctx: Context): void {
  const problem = undeclared(ctx.route, ctx.query);
  if (problem) throw problem;
}

/** The problem with the first query parameter the route's operation does not declare, or undefined. */
export function undeclared(route: string, query: Context['query']): ApiError | undefined {
  const operation = DECLARED.get(route);
  if (!operation) return undefined;
  for (const key in query) {
    if (operation.names.has(key)) continue;
    const shown = key.length > 40 ? `${key.slice(0, 40)}…` : key;
    const meant = didYouMean(key, operation.names);
    const known = operation.names.size ? `takes ${[...operation.names].join(', ')}` : 'takes none';
    return new ApiError(
      'invalid-parameter',
      `${shown} is not a parameter of GET ${operation.path}; ${meant ? `${meant} It ${known}` : `it ${known}`}.`,
    );
  }
  return undefined;
}
