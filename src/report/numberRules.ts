// How an answer's numbers are computed and written, declared once (docs/decisions.md §5, §6): the rounding every
// metric value takes, a custom formula's guarded operations, and where a number's text turns to an exponent. JSON and
// CSV answers are written by the server in JavaScript, XLSX rows by PostgreSQL in SQL; both are made from these
// declarations by `npm run sql:lattice`: formulaOperations.ts, and the functions in sql/lattice/lattice.sql
// (numberRulesSql). test/numberRules.test.ts fails while either is not current, and holds the two to the same values.

/** Every metric value is rounded to this many decimal places, halves up (towards +Infinity), as Math.round rounds. */
export const DECIMALS = 6;
/** 10^DECIMALS: a value is rounded as a whole number of these parts. */
export const PARTS = 10 ** DECIMALS;

/** A metric value rounded (DECIMALS); null for null or a value that is not finite. */
export const tidy = (value: number | null) =>
  value === null || !Number.isFinite(value) ? null : Math.round(value * PARTS) / PARTS;

/** tidy in SQL: js_round is Math.round. A sum or ratio there is never infinite: PostgreSQL raises an error first. */
export const tidySql = (expression: string) => `js_round((${expression}) * ${PARTS}::float8) / ${PARTS}::float8`;

/**
 * Beyond this magnitude a formula's value is null. PostgreSQL raises an error where a double overflows or underflows
 * to zero, and JavaScript gives Infinity or 0, so a formula is evaluated in both with the same guards, each the same
 * IEEE operation in the same order: the same values, and never an error. No marketing number comes near it.
 */
export const FORMULA_BOUND = 1e300;

/**
 * A custom formula's operations on two numbers, neither null: cases in order, the first whose condition holds giving
 * the value. Written in a small language JavaScript and SQL both read once translated (numberRules.ts's generator):
 * a, b, abs(), numbers, BOUND (FORMULA_BOUND) and TINY (1 / BOUND), + - * /, = < > <=, and, or; `else` always holds.
 */
export const FORMULA_OPERATIONS = {
  mul: [
    ['a = 0 or b = 0', 'a * b'],
    ['abs(a) > 1 and abs(b) > BOUND / abs(a)', 'null'],
    ['abs(a) < 1 and abs(b) < TINY / abs(a)', '0'],
    ['else', 'a * b'],
  ],
  div: [
    // docs/decisions.md §5: a division by zero gives null.
    ['b = 0', 'null'],
    ['a = 0', 'a / b'],
    ['abs(b) < 1 and abs(a) > BOUND * abs(b)', 'null'],
    ['abs(b) > 1 and abs(a) < TINY * abs(b)', '0'],
    ['else', 'a / b'],
  ],
  add: [
    ['abs(a) <= BOUND and abs(b) <= BOUND', 'a + b'],
    ['else', 'null'],
  ],
  sub: [
    ['abs(a) <= BOUND and abs(b) <= BOUND', 'a - b'],
    ['else', 'null'],
  ],
} as const satisfies Record<string, readonly (readonly [string, string])[]>;

export type FormulaOperation = keyof typeof FORMULA_OPERATIONS;

/**
 * Where a number's text has plain digits, as JavaScript's String() writes it (ECMA-262 §6.1.6.1.20,
 * Number::toString): a value of 0.d₁d₂… × 10^n is plain for `after` < n ≤ `upTo` (1e-7 up to 1e21), and has an
 * exponent beyond. Both write the shortest digits that read back as the same double.
 */
export const PLAIN_DIGITS = { after: -6, upTo: 21 } as const;
