// Runs the named queries of sql/queries; the function is named after the file, the connection passed in.
import type { Sql } from './database.ts';
import { queryTexts } from './sqlFiles.ts';

const texts = queryTexts();

export type QueryName = string;
/** A pool or a transaction: anything that runs a statement. */
export type Queryable = Pick<Sql, 'unsafe'>;
type Param = string | number | boolean | null | Date | string[] | number[];

/** Runs sql/queries/NAME.sql with $1.. parameters as a prepared statement. */
export function query<Row extends object>(sql: Queryable, name: QueryName, params: Param[] = []) {
  const text = texts[name];
  if (text === undefined) throw new Error(`no query file sql/queries/${name}.sql`);
  return sql.unsafe<Row[]>(text, params as never[], { prepare: true });
}
