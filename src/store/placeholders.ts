// A query's parameters by name: `:accountIds` in sql/queries and in the SQL composed around them (report/query.ts),
// made PostgreSQL's positional `$1`, `$2`, … where a statement is sent, as pgtyped and sqlc do. A file's header says
// which are a client's values (`-- client values: nameFilter`), so no position is known only to TypeScript.

/** A bound parameter's value, as postgres.js sends it. */
export type QueryParam = string | number | boolean | null | Date | string[] | number[] | (string | number | null)[];
/** A statement's parameters by name. */
export type NamedParams = Readonly<Record<string, QueryParam>>;

const NAME_START = /[A-Za-z_]/;
const NAME = /[A-Za-z0-9_]/;

/**
 * text with each placeholder `:name` replaced by to(name). Quoted literals and identifiers, comments and dollar-quoted
 * bodies are read through untouched, as is a `::` cast or a colon after a word (an array slice).
 */
export function replacePlaceholders(text: string, to: (name: string) => string): string {
  let out = '';
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (c === "'" || c === '"') {
      const escapes = c === "'" && (text[i - 1] === 'E' || text[i - 1] === 'e') && !NAME.test(text[i - 2] ?? '');
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += escapes && text[j] === '\\' ? 2 : 1;
      // A doubled quote is one quote inside the literal: the loop goes on from the second.
      i = j + 1;
    } else if (c === '$' && /^\$[A-Za-z_]?[A-Za-z0-9_]*\$/.test(text.slice(i, i + 64))) {
      const tag = /^\$[A-Za-z_]?[A-Za-z0-9_]*\$/.exec(text.slice(i, i + 64))![0];
      const end = text.indexOf(tag, i + tag.length);
      i = end < 0 ? text.length : end + tag.length;
    } else if (c === ':' && text[i + 1] === ':') {
      i += 2;
    } else if (c === ':' && NAME_START.test(text[i + 1] ?? '') && !NAME.test(text[i - 1] ?? '')) {
      let j = i + 2;
      while (j < text.length && NAME.test(text[j])) j++;
      out += text.slice(from, i) + to(text.slice(i + 1, j));
      from = i = j;
    } else {
      i++;
    }
  }
  return out + text.slice(from);
}

/** A statement as PostgreSQL takes it: `$n` for the nth name in names. */
export type Positional = { text: string; names: readonly string[] };

/** text with its placeholders made `$1`, `$2`, … in the order each name first appears; a name used twice is one. */
export function positional(text: string): Positional {
  const names: string[] = [];
  const sql = replacePlaceholders(text, (name) => {
    let at = names.indexOf(name);
    if (at < 0) at = names.push(name) - 1;
    return `$${at + 1}`;
  });
  return { text: sql, names };
}

/** The values of names from params, in order; a name without a value (undefined) is a caller's mistake. */
export function valuesOf(names: readonly string[], params: NamedParams, text: string): QueryParam[] {
  return names.map((name) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for :${name} in ${text.slice(0, 80)}`);
    return value;
  });
}

/** The parameters a query file's header names as a client's values (`-- client values: a, b`): never inlined. */
export function clientValues(text: string): string[] {
  return [...text.matchAll(/^-- client values: (.+)$/gm)].flatMap(([, list]) => list.split(',').map((n) => n.trim()));
}
