// Runs the named queries of sql/queries; the function is named after the file, the connection passed in, the
// parameters by the names the file gives them (placeholders.ts).
import type { Sql } from './database.ts';
import {
  clientValues,
  positional,
  replacePlaceholders,
  valuesOf,
  type NamedParams,
  type Positional,
  type QueryParam,
} from './placeholders.ts';
import type { QueryName } from './queryNames.ts';
import type { QueryTypes } from './queryTypes.ts';
import { queryTexts } from './sqlFiles.ts';

const texts = queryTexts();
/** Each query file as it is sent, and its client's values, worked out once a file. */
const sent = new Map<string, Positional & { client: readonly string[] }>();

export type { NamedParams, QueryName, QueryParam };
/** A pool or a transaction: anything that runs a statement. */
export type Queryable = Pick<Sql, 'unsafe'>;
type Param = QueryParam;

/**
 * Report data queries are planned for each call's own parameters. As prepared statements PostgreSQL switched them to
 * a generic plan after five calls, one that cannot see which months a date range covers or how many accounts it
 * reads, and a long range then cost nearly twice the CPU (BENCHMARKS.md). Their planning is a fraction of a
 * millisecond against tens of milliseconds of work. Every other query is small, and keeps its plan.
 */
const planEachCall = (name: QueryName) => name.startsWith('report-data-');

/** The text of sql/queries/NAME.sql. */
export function queryText(name: QueryName): string {
  const text = texts[name];
  if (text === undefined) throw new Error(`no query file sql/queries/${name}.sql`);
  return text;
}

/** A query file's text made positional, and the names its header gives as a client's values, once a file. */
function compiled(name: QueryName) {
  let done = sent.get(name);
  if (done === undefined) {
    const text = queryText(name);
    sent.set(name, (done = { ...positional(text), client: clientValues(text) }));
  }
  return done;
}

/** The names sql/queries/NAME.sql's header gives as a client's values (`-- client values:`). */
export const clientValuesOf = (name: QueryName): readonly string[] => compiled(name).client;

/** A query's row and parameters, as PostgreSQL describes them (queryTypes.ts, written by `npm run sql:types`). */
export type QueryRow<N extends QueryName> = QueryTypes[N]['row'];
export type QueryParams<N extends QueryName> = QueryTypes[N]['params'];

/**
 * Runs sql/queries/NAME.sql with its named parameters: a prepared statement, or for report data planned each call.
 * Its rows and parameters are typed from the query itself, so a column or parameter renamed under a caller fails tsc.
 */
export function query<N extends QueryName>(sql: Queryable, name: N, params?: QueryParams<N>) {
  const { text, names } = compiled(name);
  const values = valuesOf(names, (params ?? {}) as NamedParams, text);
  return sql.unsafe<QueryRow<N>[]>(text, values as never[], { prepare: !planEachCall(name) });
}

/**
 * query with rows the caller types: for a query whose name is chosen at run time (a grouping's, a list's), or whose
 * columns are JSON PostgreSQL cannot describe.
 */
export function queryAs<Row extends object>(sql: Queryable, name: QueryName, params: NamedParams = {}) {
  const { text, names } = compiled(name);
  return sql.unsafe<Row[]>(text, valuesOf(names, params, text) as never[], { prepare: !planEachCall(name) });
}

/**
 * A statement made of a query file's text and what composes around it (report/query.ts), with its named parameters
 * bound, planned for each call. postgres.js types unsafe()'s parameters as its own serializable union: cast here, once.
 */
export function statement<Row extends object>(sql: Queryable, text: string, params: NamedParams, prepare = false) {
  const made = positional(text);
  return sql.unsafe<Row[]>(made.text, valuesOf(made.names, params, text) as never[], { prepare });
}

/** A parameter's text as PostgreSQL reads it: an array as an array literal of quoted elements. */
const parameterText = (value: Exclude<Param, null>): string =>
  Array.isArray(value)
    ? `{${value.map((item) => `"${String(item).replace(/["\\]/g, '\\$&')}"`).join(',')}}`
    : value instanceof Date
      ? value.toISOString()
      : String(value);

/**
 * An escape string literal that holds no ASCII punctuation, quote, newline or comment marker of its own: every ASCII
 * character but a letter, digit or space is written as a \xHH escape. Wherever it lands in the text, a comment
 * included, it can only be the one literal.
 */
const literal = (text: string) =>
  `E'${text.replace(/[\x00-\x1f!-/:-@[-`{-\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}'`;

/**
 * The text of sql/queries/NAME.sql with its parameters written in, for COPY, which takes none. Each is an untyped
 * literal, as a bound parameter is untyped, so PostgreSQL gives both the same type from where they stand.
 */
export function inlinedQueryText(name: QueryName, params: NamedParams): string {
  return inlined(queryText(name), params, clientValuesOf(name));
}

/** The setting that carries a client's value :name into a statement that takes no parameters (Lent.bind). */
export const boundSetting = (name: string) => `readout.param_${name.toLowerCase()}`;

/**
 * text with each :name written in as a literal of params[name] (see inlinedQueryText), but those of `client`, a
 * client's values (docs/decisions.md §6), which are read from their settings (boundSetting), once a statement: never
 * written.
 */
export function inlined(text: string, params: NamedParams, client: readonly string[]): string {
  return replacePlaceholders(text, (name) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for :${name} in ${text.slice(0, 60)}`);
    if (value !== null && client.includes(name)) return `(select current_setting('${boundSetting(name)}'))`;
    return value === null ? 'null' : literal(parameterText(value));
  });
}
