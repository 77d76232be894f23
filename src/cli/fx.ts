// `fx import` and `fx list`: the exchange rates every organization's money is converted with (docs/decisions.md §11).
import { transaction, type Sql } from '../store/database.ts';
import { parseRates, RatesError } from './rates.ts';
import { query } from '../store/queries.ts';
import { readFileFlag, readFlags, UsageError, type Parsed, type ReadText } from './args.ts';
import { result, type CommandResult } from './output.ts';

/**
 * docs/decisions.md §11: what `fx import` reads at most. The European Central Bank's whole history is about 2 MB; a
 * file of `date,currency,usd_per_unit` for 30 currencies over 25 years about 7 MB.
 */
const RATES_LIMIT = { maxBytes: 16 * 1024 * 1024, command: 'fx import', instead: 'import it in parts' };

/** Rows a statement writes at a time: a history file holds hundreds of thousands. */
const BATCH = 20_000;

/**
 * Currencies whose money cannot be converted somewhere (no rate on or before the first day it is needed), naming the
 * organizations whose money it is, each with the command that fixes it: shown by `fx import` (every organization's)
 * and `import` (its organization's), on stderr and as `warnings` with --json. A currency whose demo rates an import
 * replaced says so: the demo's money before the file's first day is what turned null.
 */
export async function rateWarnings(sql: Sql, org: string | null, replaced: readonly string[] = []): Promise<string[]> {
  const rows = await query(sql, 'find-unconvertible-currencies', { org });
  return rows.map(
    (row) =>
      `${row.currency} has ${row.first_rate ? `no rate before ${row.first_rate}` : 'no exchange rate'} ` +
      `but money from ${row.needed_from} (${row.organizations.join(', ')})` +
      `${replaced.includes(row.currency) ? `, now that the file's ${row.currency} rates replace the demo's` : ''}: ` +
      `that money reads as null in any other currency; run \`readout fx import --file RATES.csv\` with rates ` +
      `from ${row.needed_from}`,
  );
}

export async function fxImport(sql: Sql, { flags }: Parsed, readText: ReadText): Promise<CommandResult> {
  const f = readFlags(flags, ['file']);
  const text = await readFileFlag(readText, f.file, RATES_LIMIT);
  let rates: ReturnType<typeof parseRates>;
  try {
    rates = parseRates(text);
  } catch (error) {
    if (error instanceof RatesError) throw new UsageError(`--file: ${error.message}`);
    throw error;
  }
  if (rates.length === 0) throw new UsageError('--file: holds no rate');
  const { written, replaced } = await transaction(sql, async (tx) => {
    await query(tx as unknown as Sql, 'lock-writers');
    const [{ currencies: replaced }] = await query(tx as unknown as Sql, 'delete-demo-rates', {
      currencies: [...new Set(rates.map((r) => r.currency))],
    });
    let rows = 0;
    for (let at = 0; at < rates.length; at += BATCH) {
      const batch = rates.slice(at, at + BATCH);
      const [out] = await query(tx as unknown as Sql, 'upsert-fx-rates', {
        currencies: batch.map((r) => r.currency),
        days: batch.map((r) => r.day),
        usdPerUnit: batch.map((r) => r.usdPerUnit),
      });
      rows += out.rows;
    }
    return { written: rows, replaced };
  });
  // The rates and the rollups converted at them changed: the next report is planned from them (analyze-rates.sql).
  await query(sql, 'analyze-rates');
  const currencies = [...new Set(rates.map((r) => r.currency))].sort();
  const days = new Set(rates.map((r) => r.day)).size;
  const warnings = await rateWarnings(sql, null, replaced);
  return {
    ...result(
      { currencies, days, rows: written, warnings },
      `${written} rates of ${currencies.length} currencies over ${days} ${days === 1 ? 'day' : 'days'} imported ` +
        `(${currencies.join(', ')})`,
    ),
    warnings,
  };
}

export async function fxList(sql: Sql, { flags }: Parsed): Promise<CommandResult> {
  readFlags(flags, []);
  const rows = await query(sql, 'list-fx-coverage');
  const currencies = rows.map((r) => ({
    currency: r.currency,
    first: r.first,
    last: r.last,
    days: r.days,
    source: r.sources.join('+'),
  }));
  const table = [
    'currency  first       last        days    source',
    ...currencies.map(
      (c) => `${c.currency.padEnd(10)}${c.first}  ${c.last}  ${String(c.days).padStart(6)}  ${c.source}`,
    ),
  ];
  return result(
    { currencies },
    currencies.length ? table.join('\n') : 'no exchange rates loaded (readout fx import --file RATES.csv)',
  );
}
