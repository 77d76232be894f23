// A write of facts (import, generate, demo, org delete): one transaction under the writers' lock (docs/decisions.md
// §14), then the facts' tables it grew by a tenth or more analysed, or every one after a delete (migration 037).
import { transaction, type Sql } from './database.ts';
import { query } from './queries.ts';

export async function factsTransaction<T>(
  sql: Sql,
  work: (tx: Sql) => Promise<T>,
  { deletes = false } = {},
): Promise<T> {
  const out = await transaction(sql, async (tx) => {
    await query(tx, 'lock-writers');
    return work(tx);
  });
  await query(sql, 'analyze-facts', [deletes]);
  return out;
}
