// Written by `npm run sql:lattice` from FORMULA_OPERATIONS (numberRules.ts), as are their SQL functions
// (formula_mul and the others, sql/lattice/lattice.sql). Do not edit; change the declaration and run it again.
import { FORMULA_BOUND } from './numberRules.ts';

const TINY = 1 / FORMULA_BOUND;

export function formulaMul(a: number, b: number): number | null {
  if (a === 0 || b === 0) return a * b;
  if (Math.abs(a) > 1 && Math.abs(b) > FORMULA_BOUND / Math.abs(a)) return null;
  if (Math.abs(a) < 1 && Math.abs(b) < TINY / Math.abs(a)) return 0;
  return a * b;
}

export function formulaDiv(a: number, b: number): number | null {
  if (b === 0) return null;
  if (a === 0) return a / b;
  if (Math.abs(b) < 1 && Math.abs(a) > FORMULA_BOUND * Math.abs(b)) return null;
  if (Math.abs(b) > 1 && Math.abs(a) < TINY * Math.abs(b)) return 0;
  return a / b;
}

export function formulaAdd(a: number, b: number): number | null {
  if (Math.abs(a) <= FORMULA_BOUND && Math.abs(b) <= FORMULA_BOUND) return a + b;
  return null;
}

export function formulaSub(a: number, b: number): number | null {
  if (Math.abs(a) <= FORMULA_BOUND && Math.abs(b) <= FORMULA_BOUND) return a - b;
  return null;
}
