// A write of facts (import, generate, demo, org delete): one transaction under the writers' lock (docs/decisions.md
// §14), then the facts' tables it grew by a tenth or more analysed, or every one after a delete (migrations 037, 040).
import { transaction, type Sql } from './database.ts';
import { query } from './queries.ts';

/** ANALYZE is one core's work a table and the tables are independent: two at once, on two connections. */
const ANALYSES_AT_ONCE = 2;

export async function factsTransaction<T>(
  sql: Sql,
  work: (tx: Sql) => Promise<T>,
  { deletes = false } = {},
): Promise<T> {
  const out = await transaction(sql, async (tx) => {
    await query(tx, 'lock-writers');
    return work(tx);
  });
  const tables = (await query(sql, 'analyze-facts', { all: deletes })).map((row) => row.table_name);
  let failed = false;
  const analyses = async () => {
    for (let table = tables.shift(); table !== undefined && !failed; table = tables.shift())
      await query(sql, 'analyze-fact-table', { table }).catch((error) => {
        failed = true;
        throw error;
      });
  };
  await Promise.all(Array.from({ length: ANALYSES_AT_ONCE }, analyses));
  return out;
}
