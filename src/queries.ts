// Runs the named queries of sql/queries; the function is named after the file, the connection passed in.
import type { Sql } from './database.ts';
import { queryTexts } from './sqlFiles.ts';

const texts = queryTexts();

export type QueryName = string;
/** A pool or a transaction: anything that runs a statement. */
export type Queryable = Pick<Sql, 'unsafe'>;
type Param = string | number | boolean | null | Date | string[] | number[];

/**
 * Report data queries are planned for each call's own parameters. As prepared statements PostgreSQL switched them to
 * a generic plan after five calls, one that cannot see which months a date range covers or how many accounts it
 * reads: 400 days of campaigns then cost it 109-117 ms of CPU a call instead of 54-72 ms. Their planning is a
 * fraction of a millisecond against tens of milliseconds of work. Every other query is small, and keeps its plan.
 */
const planEachCall = (name: QueryName) => name.startsWith('report-data-');

/** The text of sql/queries/NAME.sql. */
export function queryText(name: QueryName): string {
  const text = texts[name];
  if (text === undefined) throw new Error(`no query file sql/queries/${name}.sql`);
  return text;
}

/** Runs sql/queries/NAME.sql with $1.. parameters: a prepared statement, or for report data planned each call. */
export function query<Row extends object>(sql: Queryable, name: QueryName, params: Param[] = []) {
  return sql.unsafe<Row[]>(queryText(name), params as never[], { prepare: !planEachCall(name) });
}
