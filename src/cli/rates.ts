// Exchange-rate files as operators get them (docs/decisions.md §11): the European Central Bank's euro reference rates,
// as published, or a long CSV of USD per unit. Every line is checked before anything is kept.
import { CsvError, readCsv } from './csv.ts';

/** What one unit of a currency was worth in USD on a day. */
export type Rate = { currency: string; day: string; usdPerUnit: number };

export class RatesError extends Error {}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** A calendar day as YYYY-MM-DD from `2024-01-05` (the history file) or `05 January 2024` (the daily file). */
function dayOf(text: string): string | undefined {
  let iso = text;
  const spelled = /^(\d{1,2}) ([A-Za-z]+) (\d{4})$/.exec(text);
  if (spelled) {
    const month = MONTHS.indexOf(spelled[2].toLowerCase());
    if (month < 0) return undefined;
    iso = `${spelled[3]}-${String(month + 1).padStart(2, '0')}-${spelled[1].padStart(2, '0')}`;
  }
  if (!/^\d{4}-\d{2}-\d{2}$/.test(iso)) return undefined;
  const d = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === iso ? iso : undefined;
}

/** A positive decimal number, as both formats write them. */
const positive = (text: string) =>
  /^\d{1,12}(\.\d{1,12})?$/.test(text) && Number(text) > 0 ? Number(text) : undefined;

const LONG_HEADER = 'date,currency,usd_per_unit';

/** The rates of a file in either format; the first bad line is a RatesError naming it. */
export function parseRates(text: string): Rate[] {
  try {
    const records = readCsv(text);
    const first = records.next();
    if (first.done) throw new RatesError('line 1: the file is empty');
    const header = first.value.fields.map((field) => field.trim());
    if (header[0] === 'Date') return ecbRates(header, records);
    if (header.join(',').toLowerCase() === LONG_HEADER) return longRates(records);
  } catch (error) {
    if (error instanceof CsvError) throw new RatesError(`line ${error.line}: ${error.message}`);
    throw error;
  }
  throw new RatesError(`line 1: the header is neither the ECB's (Date,USD,JPY,...) nor ${LONG_HEADER}`);
}

/**
 * ECB reference rates: units of each currency per 1 EUR, `N/A` where there is none, a trailing comma and spaces after
 * commas allowed. USD per unit of X is (USD per EUR) / (X per EUR); EUR's is USD per EUR itself. A day without a USD
 * rate gives nothing: no other currency can be put in USD that day.
 */
function ecbRates(header: string[], records: Generator<{ line: number; fields: string[] }>): Rate[] {
  const columns = header.slice(1);
  while (columns.length > 0 && columns[columns.length - 1] === '') columns.pop();
  columns.forEach((code, i) => {
    if (!/^[A-Z]{3}$/.test(code))
      throw new RatesError(`line 1: column ${i + 2} "${code}" is not a three-letter currency code`);
    if (columns.indexOf(code) !== i) throw new RatesError(`line 1: ${code} is a column twice`);
  });
  const usdAt = columns.indexOf('USD');
  if (usdAt < 0) throw new RatesError('line 1: the ECB file has no USD column, so no rate can be put in USD');
  const rates: Rate[] = [];
  const seen = new Map<string, number>();
  for (const { line, fields } of records) {
    const cells = fields.map((field) => field.trim());
    while (cells.length > columns.length + 1 && cells[cells.length - 1] === '') cells.pop();
    if (cells.length !== columns.length + 1)
      throw new RatesError(`line ${line}: has ${cells.length} fields, the header ${columns.length + 1}`);
    const day = dayOf(cells[0]);
    if (!day) throw new RatesError(`line ${line}: "${cells[0]}" is not a date (YYYY-MM-DD or 05 January 2024)`);
    if (seen.has(day)) throw new RatesError(`line ${line}: ${day} is given twice (line ${seen.get(day)})`);
    seen.set(day, line);
    const perEuro = cells.slice(1).map((cell, i) => {
      if (cell === 'N/A' || cell === '') return undefined;
      const value = positive(cell);
      if (value === undefined)
        throw new RatesError(`line ${line}: ${columns[i]} "${cell}" is not a positive number or N/A`);
      return value;
    });
    const usdPerEuro = perEuro[usdAt];
    if (usdPerEuro === undefined) continue;
    rates.push({ currency: 'EUR', day, usdPerUnit: usdPerEuro });
    perEuro.forEach((value, i) => {
      if (value !== undefined && i !== usdAt) rates.push({ currency: columns[i], day, usdPerUnit: usdPerEuro / value });
    });
  }
  return rates;
}

function longRates(records: Generator<{ line: number; fields: string[] }>): Rate[] {
  const rates: Rate[] = [];
  const seen = new Map<string, number>();
  for (const { line, fields } of records) {
    if (fields.length !== 3)
      throw new RatesError(`line ${line}: has ${fields.length} fields, expected 3 (${LONG_HEADER})`);
    const [dayText, currency, value] = fields.map((field) => field.trim());
    const day = dayOf(dayText);
    if (!day || !/^\d{4}-/.test(dayText))
      throw new RatesError(`line ${line}: date "${dayText}" is not a YYYY-MM-DD calendar date`);
    if (!/^[A-Z]{3}$/.test(currency))
      throw new RatesError(`line ${line}: currency "${currency}" is not a three-letter code`);
    const usdPerUnit = positive(value);
    if (usdPerUnit === undefined)
      throw new RatesError(`line ${line}: usd_per_unit "${value}" is not a positive number`);
    const key = `${currency} ${day}`;
    if (seen.has(key))
      throw new RatesError(`line ${line}: ${currency} on ${day} is given twice (line ${seen.get(key)})`);
    seen.set(key, line);
    if (currency !== 'USD') rates.push({ currency, day, usdPerUnit });
    else if (usdPerUnit !== 1) throw new RatesError(`line ${line}: USD is 1 USD per unit by definition, not ${value}`);
  }
  return rates;
}
